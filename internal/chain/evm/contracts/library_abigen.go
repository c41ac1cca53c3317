// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package contracts

import (
	"bytes"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Reference imports to suppress errors if they are not otherwise used.
var (
	_ = bytes.Equal
	_ = errors.New
	_ = big.NewInt
	_ = common.Big1
	_ = types.BloomLookup
	_ = abi.ConvertType
)

// LibraryMetaData contains all meta data concerning the Library contract.
var LibraryMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"router\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"method\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"reason\",\"type\":\"string\"}],\"name\":\"ConfiguredFailure\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"method\",\"type\":\"string\"},{\"internalType\":\"uint64\",\"name\":\"failUntil\",\"type\":\"uint64\"}],\"name\":\"NotReady\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"string\",\"name\":\"executionId\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"bool\",\"name\":\"success\",\"type\":\"bool\"}],\"name\":\"CallbackConfirmation\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"string\",\"name\":\"method\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"count\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"}],\"name\":\"Called\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"string\",\"name\":\"method\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"failTimes\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"failUntil\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"failReason\",\"type\":\"string\"}],\"name\":\"Configured\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"string\",\"name\":\"method\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"reason\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"failuresLeft\",\"type\":\"uint64\"}],\"name\":\"SoftFailure\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"DEFAULT_REASON\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"method\",\"type\":\"string\"}],\"name\":\"act\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"method\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"execution\",\"type\":\"string\"}],\"name\":\"actConfirmed\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"execution\",\"type\":\"string\"}],\"name\":\"attempts\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"method\",\"type\":\"string\"},{\"internalType\":\"uint64\",\"name\":\"failTimes\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"failUntil\",\"type\":\"uint64\"},{\"internalType\":\"string\",\"name\":\"failReason\",\"type\":\"string\"}],\"name\":\"configure\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"executionId\",\"type\":\"string\"},{\"internalType\":\"bool\",\"name\":\"success\",\"type\":\"bool\"}],\"name\":\"confirm\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"method\",\"type\":\"string\"}],\"name\":\"count\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"forwarder\",\"type\":\"address\"}],\"name\":\"isTrustedForwarder\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"method\",\"type\":\"string\"}],\"name\":\"setting\",\"outputs\":[{\"internalType\":\"uint64\",\"name\":\"failTimes\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"failuresLeft\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"failUntil\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"configuredAt\",\"type\":\"uint64\"},{\"internalType\":\"string\",\"name\":\"failReason\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"trustedRouter\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "Library",
	Bin: "0x60a0604052348015600e575f5ffd5b50604051611209380380611209833981016040819052602b91603b565b6001600160a01b03166080526066565b5f60208284031215604a575f5ffd5b81516001600160a01b0381168114605f575f5ffd5b9392505050565b60805161117d61008c5f395f81816101130152818161019301526109b1015261117d5ff3fe608060405234801561000f575f5ffd5b506004361061009b575f3560e01c80639254010511610063578063925401051461017b5780639acda3bb1461018e578063af3bf62d146101cd578063d3160b00146101e0578063ef7ae53f146101f3575f5ffd5b80630dc641e61461009f57806312de113f146100c5578063572b6c0514610103578063764ae85f1461015357806384a5bb0e14610168575b5f5ffd5b6100b26100ad366004610a56565b610217565b6040519081526020015b60405180910390f35b6100f660405180604001604052806012815260200171636f6e66696775726564206661696c75726560701b81525081565b6040516100bc9190610ac2565b610143610111366004610ad4565b7f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0390811691161490565b60405190151581526020016100bc565b610166610161366004610afa565b61024a565b005b6100b2610176366004610a56565b61028a565b610166610189366004610a56565b61029e565b6101b57f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b0390911681526020016100bc565b6101666101db366004610b6b565b610394565b6101666101ee366004610bfa565b6104e4565b610206610201366004610a56565b6106b6565b6040516100bc959493929190610c64565b5f60025f848460405161022b929190610cbd565b604051809103902081526020019081526020015f205490505b92915050565b7fb509c95bf3763415d734b49512d5c6d5482ea9c07a207d52eddb319018e6a74383838360405161027d93929190610cf4565b60405180910390a1505050565b5f60035f848460405161022b929190610cbd565b5f82826040516102af929190610cbd565b604080519182900382205f818152602081815290839020608085018452546001600160401b038082168652600160401b8204811692860192909252600160801b81048216938501849052600160c01b9004166060840152925043101561033b578383826040015160405163d7d5152f60e01b815260040161033293929190610d19565b60405180910390fd5b805f01516001600160401b031681602001516001600160401b031610156103835783836103678461075b565b604051635f4fcc4360e01b815260040161033293929190610d45565b61038e828585610837565b50505050565b5f86866040516103a5929190610cbd565b604080519182900382206080830182526001600160401b0380891684525f60208086018281528a8416878701908152438516606089019081528685529284905295909220955186549251955191518416600160c01b026001600160c01b03928516600160801b02929092166fffffffffffffffffffffffffffffffff968516600160401b026fffffffffffffffffffffffffffffffff1990941691909416179190911793909316179190911790915590508115158061047b57505f818152600160205260408120805461047790610d74565b9050115b1561049a575f818152600160205260409020610498838583610e17565b505b7f27e17a0771f6f30b2b97d548a28f6d499676be9d009b665fedcef04b0121f0078787878787876040516104d396959493929190610ed1565b60405180910390a150505050505050565b5f84846040516104f5929190610cbd565b604051809103902090505f60035f8585604051610513929190610cbd565b604051809103902081526020019081526020015f205f815461053490610f36565b918290555090505f8484610547846108aa565b60405160200161055993929190610f4e565b60408051808303601f190181529181525f858152602081905220805491925090600160801b90046001600160401b0316431080159081906105ad575081546001600160401b03808216600160401b90920416105b156105f9575080545f90600160401b90046001600160401b03168260086105d383610f7b565b91906101000a8154816001600160401b0302191690836001600160401b03160217905550505b801561060f5761060a858a8a610837565b610672565b7fdcb1694b5614268d6dbeb76177cc78946afff29250c4eca2976884d590c383cc898961063b8861075b565b8554610659906001600160401b03600160401b820481169116610fa5565b6040516106699493929190610fc4565b60405180910390a15b7fb509c95bf3763415d734b49512d5c6d5482ea9c07a207d52eddb319018e6a74383826040516106a3929190611004565b60405180910390a1505050505050505050565b5f5f5f5f60605f87876040516106cd929190610cbd565b604080519182900382205f818152602081815290839020608085018452546001600160401b03808216808752600160401b83048216938701849052600160801b8304821695870195909552600160c01b9091041660608501529093506107339082610fa5565b826040015183606001516107468661075b565b939d929c50909a509850909650945050505050565b5f8181526001602052604081208054606092919061077890610d74565b80601f01602080910402602001604051908101604052809291908181526020018280546107a490610d74565b80156107ef5780601f106107c6576101008083540402835291602001916107ef565b820191905f5260205f20905b8154815290600101906020018083116107d257829003601f168201915b505050505090505f81511161082e5760405180604001604052806012815260200171636f6e66696775726564206661696c75726560701b815250610830565b805b9392505050565b5f8381526002602052604081208054829061085190610f36565b918290555090506108606109a5565b6001600160a01b03167fd636da80b6d4f0f46071a0c103813135d8e2cbf7555710e9ef350431e1ffdea384848460405161089c93929190611027565b60405180910390a250505050565b6060815f036108d05750506040805180820190915260018152600360fc1b602082015290565b5f825b80156108f957816108e381610f36565b92506108f29050600a8261105e565b90506108d3565b505f816001600160401b0381111561091357610913610dac565b6040519080825280601f01601f19166020018201604052801561093d576020820181803683370190505b5090505b831561083057610952600a85611071565b61095d906030611084565b60f81b8161096a84611097565b9350838151811061097d5761097d6110ac565b60200101906001600160f81b03191690815f1a90535061099e600a8561105e565b9350610941565b5f336001600160a01b037f0000000000000000000000000000000000000000000000000000000000000000161480156109df575060143610155b15610a0d575f366109f16014826110c0565b6109fc9282906110d3565b610a05916110fa565b60601c905090565b503390565b5f5f83601f840112610a22575f5ffd5b5081356001600160401b03811115610a38575f5ffd5b602083019150836020828501011115610a4f575f5ffd5b9250929050565b5f5f60208385031215610a67575f5ffd5b82356001600160401b03811115610a7c575f5ffd5b610a8885828601610a12565b90969095509350505050565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b602081525f6108306020830184610a94565b5f60208284031215610ae4575f5ffd5b81356001600160a01b0381168114610830575f5ffd5b5f5f5f60408486031215610b0c575f5ffd5b83356001600160401b03811115610b21575f5ffd5b610b2d86828701610a12565b90945092505060208401358015158114610b45575f5ffd5b809150509250925092565b80356001600160401b0381168114610b66575f5ffd5b919050565b5f5f5f5f5f5f60808789031215610b80575f5ffd5b86356001600160401b03811115610b95575f5ffd5b610ba189828a01610a12565b9097509550610bb4905060208801610b50565b9350610bc260408801610b50565b925060608701356001600160401b03811115610bdc575f5ffd5b610be889828a01610a12565b979a9699509497509295939492505050565b5f5f5f5f60408587031215610c0d575f5ffd5b84356001600160401b03811115610c22575f5ffd5b610c2e87828801610a12565b90955093505060208501356001600160401b03811115610c4c575f5ffd5b610c5887828801610a12565b95989497509550505050565b6001600160401b03861681526001600160401b03851660208201526001600160401b03841660408201526001600160401b038316606082015260a060808201525f610cb260a0830184610a94565b979650505050505050565b818382375f9101908152919050565b81835281816020850137505f828201602090810191909152601f909101601f19169091010190565b604081525f610d07604083018587610ccc565b90508215156020830152949350505050565b604081525f610d2c604083018587610ccc565b90506001600160401b0383166020830152949350505050565b604081525f610d58604083018587610ccc565b8281036020840152610d6a8185610a94565b9695505050505050565b600181811c90821680610d8857607f821691505b602082108103610da657634e487b7160e01b5f52602260045260245ffd5b50919050565b634e487b7160e01b5f52604160045260245ffd5b601f821115610e125782821115610e1257805f5260205f20601f840160051c6020851015610deb57505f5b90810190601f840160051c035f5b81811015610e0e575f83820155600101610df9565b5050505b505050565b6001600160401b03831115610e2e57610e2e610dac565b610e4283610e3c8354610d74565b83610dc0565b5f601f841160018114610e73575f8515610e5c5750838201355b5f19600387901b1c1916600186901b178355610eca565b5f83815260208120601f198716915b82811015610ea25786850135825560209485019460019092019101610e82565b5086821015610ebe575f1960f88860031b161c19848701351681555b505060018560011b0183555b5050505050565b608081525f610ee460808301888a610ccc565b6001600160401b03871660208401526001600160401b03861660408401528281036060840152610f15818587610ccc565b9998505050505050505050565b634e487b7160e01b5f52601160045260245ffd5b5f60018201610f4757610f47610f22565b5060010190565b828482375f838201602f60f81b815283518060208601600184015e5f910160010190815295945050505050565b5f6001600160401b0382166001600160401b038103610f9c57610f9c610f22565b60010192915050565b6001600160401b03828116828216039081111561024457610244610f22565b606081525f610fd7606083018688610ccc565b8281036020840152610fe98186610a94565b9150506001600160401b038316604083015295945050505050565b604081525f6110166040830185610a94565b905082151560208301529392505050565b604081525f61103a604083018587610ccc565b9050826020830152949350505050565b634e487b7160e01b5f52601260045260245ffd5b5f8261106c5761106c61104a565b500490565b5f8261107f5761107f61104a565b500690565b8082018082111561024457610244610f22565b5f816110a5576110a5610f22565b505f190190565b634e487b7160e01b5f52603260045260245ffd5b8181038181111561024457610244610f22565b5f5f858511156110e1575f5ffd5b838611156110ed575f5ffd5b5050820193919092039150565b80356bffffffffffffffffffffffff198116906014841015611140576bffffffffffffffffffffffff196bffffffffffffffffffffffff198560140360031b1b82161691505b509291505056fea2646970667358221220086af4b6153205dbc4b1bc8f3676391e44dad47e39a4ac33800b0ad4c621b91164736f6c63430008250033",
}

// Library is an auto generated Go binding around an Ethereum contract.
type Library struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *Library) GetABI() abi.ABI {
	return c.abi
}

// NewLibrary creates a new instance of Library.
func NewLibrary() *Library {
	parsed, err := LibraryMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &Library{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *Library) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address router) returns()
func (library *Library) PackConstructor(router common.Address) []byte {
	enc, err := library.abi.Pack("", router)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackDEFAULTREASON is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x12de113f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function DEFAULT_REASON() view returns(string)
func (library *Library) PackDEFAULTREASON() []byte {
	enc, err := library.abi.Pack("DEFAULT_REASON")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDEFAULTREASON is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x12de113f.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function DEFAULT_REASON() view returns(string)
func (library *Library) TryPackDEFAULTREASON() ([]byte, error) {
	return library.abi.Pack("DEFAULT_REASON")
}

// UnpackDEFAULTREASON is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x12de113f.
//
// Solidity: function DEFAULT_REASON() view returns(string)
func (library *Library) UnpackDEFAULTREASON(data []byte) (string, error) {
	out, err := library.abi.Unpack("DEFAULT_REASON", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackAct is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x92540105.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function act(string method) returns()
func (library *Library) PackAct(method string) []byte {
	enc, err := library.abi.Pack("act", method)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAct is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x92540105.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function act(string method) returns()
func (library *Library) TryPackAct(method string) ([]byte, error) {
	return library.abi.Pack("act", method)
}

// PackActConfirmed is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd3160b00.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function actConfirmed(string method, string execution) returns()
func (library *Library) PackActConfirmed(method string, execution string) []byte {
	enc, err := library.abi.Pack("actConfirmed", method, execution)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackActConfirmed is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd3160b00.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function actConfirmed(string method, string execution) returns()
func (library *Library) TryPackActConfirmed(method string, execution string) ([]byte, error) {
	return library.abi.Pack("actConfirmed", method, execution)
}

// PackAttempts is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x84a5bb0e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function attempts(string execution) view returns(uint256)
func (library *Library) PackAttempts(execution string) []byte {
	enc, err := library.abi.Pack("attempts", execution)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAttempts is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x84a5bb0e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function attempts(string execution) view returns(uint256)
func (library *Library) TryPackAttempts(execution string) ([]byte, error) {
	return library.abi.Pack("attempts", execution)
}

// UnpackAttempts is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x84a5bb0e.
//
// Solidity: function attempts(string execution) view returns(uint256)
func (library *Library) UnpackAttempts(data []byte) (*big.Int, error) {
	out, err := library.abi.Unpack("attempts", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackConfigure is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xaf3bf62d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function configure(string method, uint64 failTimes, uint64 failUntil, string failReason) returns()
func (library *Library) PackConfigure(method string, failTimes uint64, failUntil uint64, failReason string) []byte {
	enc, err := library.abi.Pack("configure", method, failTimes, failUntil, failReason)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackConfigure is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xaf3bf62d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function configure(string method, uint64 failTimes, uint64 failUntil, string failReason) returns()
func (library *Library) TryPackConfigure(method string, failTimes uint64, failUntil uint64, failReason string) ([]byte, error) {
	return library.abi.Pack("configure", method, failTimes, failUntil, failReason)
}

// PackConfirm is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x764ae85f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function confirm(string executionId, bool success) returns()
func (library *Library) PackConfirm(executionId string, success bool) []byte {
	enc, err := library.abi.Pack("confirm", executionId, success)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackConfirm is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x764ae85f.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function confirm(string executionId, bool success) returns()
func (library *Library) TryPackConfirm(executionId string, success bool) ([]byte, error) {
	return library.abi.Pack("confirm", executionId, success)
}

// PackCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0dc641e6.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function count(string method) view returns(uint256)
func (library *Library) PackCount(method string) []byte {
	enc, err := library.abi.Pack("count", method)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0dc641e6.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function count(string method) view returns(uint256)
func (library *Library) TryPackCount(method string) ([]byte, error) {
	return library.abi.Pack("count", method)
}

// UnpackCount is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x0dc641e6.
//
// Solidity: function count(string method) view returns(uint256)
func (library *Library) UnpackCount(data []byte) (*big.Int, error) {
	out, err := library.abi.Unpack("count", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackIsTrustedForwarder is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x572b6c05.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isTrustedForwarder(address forwarder) view returns(bool)
func (library *Library) PackIsTrustedForwarder(forwarder common.Address) []byte {
	enc, err := library.abi.Pack("isTrustedForwarder", forwarder)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsTrustedForwarder is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x572b6c05.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isTrustedForwarder(address forwarder) view returns(bool)
func (library *Library) TryPackIsTrustedForwarder(forwarder common.Address) ([]byte, error) {
	return library.abi.Pack("isTrustedForwarder", forwarder)
}

// UnpackIsTrustedForwarder is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x572b6c05.
//
// Solidity: function isTrustedForwarder(address forwarder) view returns(bool)
func (library *Library) UnpackIsTrustedForwarder(data []byte) (bool, error) {
	out, err := library.abi.Unpack("isTrustedForwarder", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackSetting is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xef7ae53f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setting(string method) view returns(uint64 failTimes, uint64 failuresLeft, uint64 failUntil, uint64 configuredAt, string failReason)
func (library *Library) PackSetting(method string) []byte {
	enc, err := library.abi.Pack("setting", method)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSetting is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xef7ae53f.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function setting(string method) view returns(uint64 failTimes, uint64 failuresLeft, uint64 failUntil, uint64 configuredAt, string failReason)
func (library *Library) TryPackSetting(method string) ([]byte, error) {
	return library.abi.Pack("setting", method)
}

// SettingOutput serves as a container for the return parameters of contract
// method Setting.
type SettingOutput struct {
	FailTimes    uint64
	FailuresLeft uint64
	FailUntil    uint64
	ConfiguredAt uint64
	FailReason   string
}

// UnpackSetting is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xef7ae53f.
//
// Solidity: function setting(string method) view returns(uint64 failTimes, uint64 failuresLeft, uint64 failUntil, uint64 configuredAt, string failReason)
func (library *Library) UnpackSetting(data []byte) (SettingOutput, error) {
	out, err := library.abi.Unpack("setting", data)
	outstruct := new(SettingOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.FailTimes = *abi.ConvertType(out[0], new(uint64)).(*uint64)
	outstruct.FailuresLeft = *abi.ConvertType(out[1], new(uint64)).(*uint64)
	outstruct.FailUntil = *abi.ConvertType(out[2], new(uint64)).(*uint64)
	outstruct.ConfiguredAt = *abi.ConvertType(out[3], new(uint64)).(*uint64)
	outstruct.FailReason = *abi.ConvertType(out[4], new(string)).(*string)
	return *outstruct, nil
}

// PackTrustedRouter is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9acda3bb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function trustedRouter() view returns(address)
func (library *Library) PackTrustedRouter() []byte {
	enc, err := library.abi.Pack("trustedRouter")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTrustedRouter is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9acda3bb.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function trustedRouter() view returns(address)
func (library *Library) TryPackTrustedRouter() ([]byte, error) {
	return library.abi.Pack("trustedRouter")
}

// UnpackTrustedRouter is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x9acda3bb.
//
// Solidity: function trustedRouter() view returns(address)
func (library *Library) UnpackTrustedRouter(data []byte) (common.Address, error) {
	out, err := library.abi.Unpack("trustedRouter", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// LibraryCallbackConfirmation represents a CallbackConfirmation event raised by the Library contract.
type LibraryCallbackConfirmation struct {
	ExecutionId string
	Success     bool
	Raw         *types.Log // Blockchain specific contextual infos
}

const LibraryCallbackConfirmationEventName = "CallbackConfirmation"

// ContractEventName returns the user-defined event name.
func (LibraryCallbackConfirmation) ContractEventName() string {
	return LibraryCallbackConfirmationEventName
}

// UnpackCallbackConfirmationEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event CallbackConfirmation(string executionId, bool success)
func (library *Library) UnpackCallbackConfirmationEvent(log *types.Log) (*LibraryCallbackConfirmation, error) {
	event := "CallbackConfirmation"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != library.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(LibraryCallbackConfirmation)
	if len(log.Data) > 0 {
		if err := library.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range library.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// LibraryCalled represents a Called event raised by the Library contract.
type LibraryCalled struct {
	Method string
	Count  *big.Int
	From   common.Address
	Raw    *types.Log // Blockchain specific contextual infos
}

const LibraryCalledEventName = "Called"

// ContractEventName returns the user-defined event name.
func (LibraryCalled) ContractEventName() string {
	return LibraryCalledEventName
}

// UnpackCalledEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Called(string method, uint256 count, address indexed from)
func (library *Library) UnpackCalledEvent(log *types.Log) (*LibraryCalled, error) {
	event := "Called"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != library.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(LibraryCalled)
	if len(log.Data) > 0 {
		if err := library.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range library.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// LibraryConfigured represents a Configured event raised by the Library contract.
type LibraryConfigured struct {
	Method     string
	FailTimes  uint64
	FailUntil  uint64
	FailReason string
	Raw        *types.Log // Blockchain specific contextual infos
}

const LibraryConfiguredEventName = "Configured"

// ContractEventName returns the user-defined event name.
func (LibraryConfigured) ContractEventName() string {
	return LibraryConfiguredEventName
}

// UnpackConfiguredEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Configured(string method, uint64 failTimes, uint64 failUntil, string failReason)
func (library *Library) UnpackConfiguredEvent(log *types.Log) (*LibraryConfigured, error) {
	event := "Configured"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != library.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(LibraryConfigured)
	if len(log.Data) > 0 {
		if err := library.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range library.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// LibrarySoftFailure represents a SoftFailure event raised by the Library contract.
type LibrarySoftFailure struct {
	Method       string
	Reason       string
	FailuresLeft uint64
	Raw          *types.Log // Blockchain specific contextual infos
}

const LibrarySoftFailureEventName = "SoftFailure"

// ContractEventName returns the user-defined event name.
func (LibrarySoftFailure) ContractEventName() string {
	return LibrarySoftFailureEventName
}

// UnpackSoftFailureEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event SoftFailure(string method, string reason, uint64 failuresLeft)
func (library *Library) UnpackSoftFailureEvent(log *types.Log) (*LibrarySoftFailure, error) {
	event := "SoftFailure"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != library.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(LibrarySoftFailure)
	if len(log.Data) > 0 {
		if err := library.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range library.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (library *Library) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], library.abi.Errors["ConfiguredFailure"].ID.Bytes()[:4]) {
		return library.UnpackConfiguredFailureError(raw[4:])
	}
	if bytes.Equal(raw[:4], library.abi.Errors["NotReady"].ID.Bytes()[:4]) {
		return library.UnpackNotReadyError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// LibraryConfiguredFailure represents a ConfiguredFailure error raised by the Library contract.
type LibraryConfiguredFailure struct {
	Method string
	Reason string
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ConfiguredFailure(string method, string reason)
func LibraryConfiguredFailureErrorID() common.Hash {
	return common.HexToHash("0x5f4fcc43f6dfbb7c49ee3a927e2fd3c34b51b4758b4487b4e689903bc6549000")
}

// UnpackConfiguredFailureError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ConfiguredFailure(string method, string reason)
func (library *Library) UnpackConfiguredFailureError(raw []byte) (*LibraryConfiguredFailure, error) {
	out := new(LibraryConfiguredFailure)
	if err := library.abi.UnpackIntoInterface(out, "ConfiguredFailure", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// LibraryNotReady represents a NotReady error raised by the Library contract.
type LibraryNotReady struct {
	Method    string
	FailUntil uint64
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotReady(string method, uint64 failUntil)
func LibraryNotReadyErrorID() common.Hash {
	return common.HexToHash("0xd7d5152f34395f0f8bdbf951db3000b767cc2de2cc93680cdde69654f5ad4e6c")
}

// UnpackNotReadyError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotReady(string method, uint64 failUntil)
func (library *Library) UnpackNotReadyError(raw []byte) (*LibraryNotReady, error) {
	out := new(LibraryNotReady)
	if err := library.abi.UnpackIntoInterface(out, "NotReady", raw); err != nil {
		return nil, err
	}
	return out, nil
}
