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

// OrdoRouterCall is an auto generated low-level Go binding around an user-defined struct.
type OrdoRouterCall struct {
	Target common.Address
	Data   []byte
}

// OrdoRouterMetaData contains all meta data concerning the OrdoRouter contract.
var OrdoRouterMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address[]\",\"name\":\"submitters\",\"type\":\"address[]\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"index\",\"type\":\"uint256\"},{\"internalType\":\"bytes\",\"name\":\"reason\",\"type\":\"bytes\"}],\"name\":\"CallFailed\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"uid\",\"type\":\"bytes32\"},{\"internalType\":\"uint64\",\"name\":\"appliedAt\",\"type\":\"uint64\"}],\"name\":\"IntentAlreadyApplied\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"uid\",\"type\":\"bytes32\"},{\"internalType\":\"uint64\",\"name\":\"appliedAt\",\"type\":\"uint64\"}],\"name\":\"IntentConflicts\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"}],\"name\":\"NotOwner\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"}],\"name\":\"NotSubmitter\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"OnlySelf\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"OutOfGas\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"target\",\"type\":\"address\"}],\"name\":\"TargetHasNoCode\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"TargetIsRouter\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"uid\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"submitter\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"callsHash\",\"type\":\"bytes32\"}],\"name\":\"IntentApplied\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"uid\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"submitter\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"callsHash\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"appliedAt\",\"type\":\"uint64\"}],\"name\":\"IntentConflict\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"uid\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"submitter\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"appliedAt\",\"type\":\"uint64\"}],\"name\":\"IntentDuplicate\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes32\",\"name\":\"uid\",\"type\":\"bytes32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"submitter\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"index\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"reason\",\"type\":\"bytes\"}],\"name\":\"IntentFailed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"previousOwner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"newOwner\",\"type\":\"address\"}],\"name\":\"OwnerChanged\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"submitter\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bool\",\"name\":\"allowed\",\"type\":\"bool\"}],\"name\":\"SubmitterSet\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"uid\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"callsHash\",\"type\":\"bytes32\"},{\"internalType\":\"address\",\"name\":\"submitter\",\"type\":\"address\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"target\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"internalType\":\"structOrdoRouter.Call[]\",\"name\":\"calls\",\"type\":\"tuple[]\"}],\"name\":\"applyBatch\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"target\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"internalType\":\"structOrdoRouter.Call[]\",\"name\":\"calls\",\"type\":\"tuple[]\"}],\"name\":\"callsHashOf\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"memo\",\"type\":\"string\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"target\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"internalType\":\"structOrdoRouter.Call[]\",\"name\":\"calls\",\"type\":\"tuple[]\"}],\"name\":\"execute\",\"outputs\":[{\"internalType\":\"enumOrdoRouter.Outcome\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"memo\",\"type\":\"string\"},{\"components\":[{\"internalType\":\"address\",\"name\":\"target\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"internalType\":\"structOrdoRouter.Call[]\",\"name\":\"calls\",\"type\":\"tuple[]\"}],\"name\":\"executeStrict\",\"outputs\":[{\"internalType\":\"enumOrdoRouter.Outcome\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"submitter\",\"type\":\"address\"}],\"name\":\"isSubmitter\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"owner\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes32\",\"name\":\"uid\",\"type\":\"bytes32\"}],\"name\":\"records\",\"outputs\":[{\"internalType\":\"uint64\",\"name\":\"appliedAt\",\"type\":\"uint64\"},{\"internalType\":\"bytes24\",\"name\":\"callsHash\",\"type\":\"bytes24\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"submitter\",\"type\":\"address\"},{\"internalType\":\"bool\",\"name\":\"allowed\",\"type\":\"bool\"}],\"name\":\"setSubmitter\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"newOwner\",\"type\":\"address\"}],\"name\":\"transferOwnership\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"memo\",\"type\":\"string\"}],\"name\":\"uidOf\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"pure\",\"type\":\"function\"}]",
	ID:  "OrdoRouter",
	Bin: "0x608060405234801561000f575f5ffd5b506040516111de3803806111de83398101604081905261002e91610167565b5f80546001600160a01b0319163390811782556040519091907fb532073b38c83145e3e5135377a08bf9aab55bc0fd7c1179cd4fb995d2a5159c908290a35f5b8151811015610131576001805f84848151811061008d5761008d610231565b60200260200101516001600160a01b03166001600160a01b031681526020019081526020015f205f6101000a81548160ff0219169083151502179055508181815181106100dc576100dc610231565b60200260200101516001600160a01b03167f54992e75d6204e64e6576ace5c7d2782c63fbb124424beb2fbaf3199c88176186001604051610121911515815260200190565b60405180910390a260010161006e565b5050610245565b634e487b7160e01b5f52604160045260245ffd5b80516001600160a01b0381168114610162575f5ffd5b919050565b5f60208284031215610177575f5ffd5b81516001600160401b0381111561018c575f5ffd5b8201601f8101841361019c575f5ffd5b80516001600160401b038111156101b5576101b5610138565b604051600582901b90603f8201601f191681016001600160401b03811182821017156101e3576101e3610138565b604052918252602081840181019290810187841115610200575f5ffd5b6020850194505b83851015610226576102188561014c565b815260209485019401610207565b509695505050505050565b634e487b7160e01b5f52603260045260245ffd5b610f8c806102525f395ff3fe608060405234801561000f575f5ffd5b506004361061009b575f3560e01c806396fbdc991161006357806396fbdc9914610175578063a926fdbc14610188578063ba512517146101ba578063e2cdb436146101db578063f2fde38b146101ee575f5ffd5b806301e647251461009f57806321b6ace61461010357806384990528146101235780638da5cb5b146101385780638ec3025814610162575b5f5ffd5b6100d56100ad36600461098b565b60026020525f908152604090819020546001600160401b03811691600160401b909104901b82565b604080516001600160401b03909316835267ffffffffffffffff199091166020830152015b60405180910390f35b610116610111366004610a26565b610201565b6040516100fa9190610a90565b610136610131366004610ad1565b610218565b005b5f5461014a906001600160a01b031681565b6040516001600160a01b0390911681526020016100fa565b610116610170366004610a26565b61046c565b610136610183366004610b33565b61047b565b6101aa610196366004610b6c565b60016020525f908152604090205460ff1681565b60405190151581526020016100fa565b6101cd6101c8366004610b8c565b610505565b6040519081526020016100fa565b6101cd6101e9366004610bca565b610526565b6101366101fc366004610b6c565b610558565b5f61020f858585855f6105dd565b95945050505050565b3330146102385760405163029a949d60e31b815260040160405180910390fd5b6040805180820182526001600160401b03438116825267ffffffffffffffff19871660208084019182525f8a815260029091528481209351915190941c600160401b0291161790555b81811015610464575f83838381811061029c5761029c610bfc565b90506020028101906102ae9190610c10565b6102bc906020810190610b6c565b9050306001600160a01b03821603610319576040805160048082526024820183526020820180516001600160e01b031663ce4c171b60e01b1790529151635c0dee5d60e01b81526103109285929101610c2e565b60405180910390fd5b806001600160a01b03163b5f0361038957604080516001600160a01b03831660248083019190915282518083039091018152604490910182526020810180516001600160e01b03166001620dcc9f60e01b03191790529051635c0dee5d60e01b8152610310918491600401610c2e565b5f5f826001600160a01b03168686868181106103a7576103a7610bfc565b90506020028101906103b99190610c10565b6103c7906020810190610c6a565b896040516020016103da93929190610cac565b60408051601f19818403018152908290526103f491610cd2565b5f604051808303815f865af19150503d805f811461042d576040519150601f19603f3d011682016040523d82523d5f602084013e610432565b606091505b509150915081610459578381604051635c0dee5d60e01b8152600401610310929190610c2e565b505050600101610281565b505050505050565b5f61020f8585858560016105dd565b5f546001600160a01b031633146104a75760405163245aecd360e01b8152336004820152602401610310565b6001600160a01b0382165f81815260016020908152604091829020805460ff191685151590811790915591519182527f54992e75d6204e64e6576ace5c7d2782c63fbb124424beb2fbaf3199c8817618910160405180910390a25050565b5f8282604051610516929190610ce8565b6040518091039020905092915050565b5f828260405160200161053a929190610dd8565b60405160208183030381529060405280519060200120905092915050565b5f546001600160a01b031633146105845760405163245aecd360e01b8152336004820152602401610310565b5f80546040516001600160a01b03808516939216917fb532073b38c83145e3e5135377a08bf9aab55bc0fd7c1179cd4fb995d2a5159c91a35f80546001600160a01b0319166001600160a01b0392909216919091179055565b335f9081526001602052604081205460ff1661060e57604051630b5024e560e11b8152336004820152602401610310565b5f868660405161061f929190610ce8565b604051809103902090505f858560405160200161063d929190610dd8565b60408051601f1981840301815282825280516020918201205f868152600283528390208484018452546001600160401b03811680865267ffffffffffffffff19600160401b90920490941b16918401919091529250156107bb57602081015167ffffffffffffffff198084169116036107335784156106e4578051604051630490b66d60e21b8152600481018590526001600160401b039091166024820152604401610310565b80516040516001600160401b039091168152339084907f9cffba2fde25a21d6c448e6b4569b68d641672e34a311194e80c782714a3e2759060200160405180910390a36001935050505061020f565b841561076757805160405163749d984160e01b8152600481018590526001600160401b039091166024820152604401610310565b8051604080518481526001600160401b039092166020830152339185917f4e4126b846a738257ee146518f9afb9bf6d6cd156782e15b2a4cca74570cc8cc910160405180910390a36002935050505061020f565b5f5a60405163109320a560e31b815290915030906384990528906107eb908790879033908e908e90600401610df3565b5f604051808303815f87803b158015610802575f5ffd5b505af1925050508015610813575060015b6108e2573d808015610840576040519150601f19603f3d011682016040523d82523d5f602084013e610845565b606091505b50610851601083610e2b565b5a1015610871576040516377ebef4d60e01b815260040160405180910390fd5b861561087f57805160208201fd5b5f5f61088a83610928565b91509150336001600160a01b0316877f6fc248c361770787ab7f63b61fcb729639735984b1d27fc49315fb0a9f54408f84846040516108ca929190610c2e565b60405180910390a3600397505050505050505061020f565b604051838152339085907f7aa55cc992894009ef3e395b987877efe74f15649ff507d1f8af41577477ce389060200160405180910390a3505f9998505050505050505050565b5f60606004835110806109545750635c0dee5d60e01b61094784610e4a565b6001600160e01b03191614155b1561096157505f19929050565b82516003198101600485019081529361098291810160200190602401610e9c565b91509150915091565b5f6020828403121561099b575f5ffd5b5035919050565b5f5f83601f8401126109b2575f5ffd5b5081356001600160401b038111156109c8575f5ffd5b6020830191508360208285010111156109df575f5ffd5b9250929050565b5f5f83601f8401126109f6575f5ffd5b5081356001600160401b03811115610a0c575f5ffd5b6020830191508360208260051b85010111156109df575f5ffd5b5f5f5f5f60408587031215610a39575f5ffd5b84356001600160401b03811115610a4e575f5ffd5b610a5a878288016109a2565b90955093505060208501356001600160401b03811115610a78575f5ffd5b610a84878288016109e6565b95989497509550505050565b6020810160048310610ab057634e487b7160e01b5f52602160045260245ffd5b91905290565b80356001600160a01b0381168114610acc575f5ffd5b919050565b5f5f5f5f5f60808688031215610ae5575f5ffd5b8535945060208601359350610afc60408701610ab6565b925060608601356001600160401b03811115610b16575f5ffd5b610b22888289016109e6565b969995985093965092949392505050565b5f5f60408385031215610b44575f5ffd5b610b4d83610ab6565b915060208301358015158114610b61575f5ffd5b809150509250929050565b5f60208284031215610b7c575f5ffd5b610b8582610ab6565b9392505050565b5f5f60208385031215610b9d575f5ffd5b82356001600160401b03811115610bb2575f5ffd5b610bbe858286016109a2565b90969095509350505050565b5f5f60208385031215610bdb575f5ffd5b82356001600160401b03811115610bf0575f5ffd5b610bbe858286016109e6565b634e487b7160e01b5f52603260045260245ffd5b5f8235603e19833603018112610c24575f5ffd5b9190910192915050565b828152604060208201525f82518060408401528060208501606085015e5f606082850101526060601f19601f8301168401019150509392505050565b5f5f8335601e19843603018112610c7f575f5ffd5b8301803591506001600160401b03821115610c98575f5ffd5b6020019150368190038213156109df575f5ffd5b8284823760609190911b6bffffffffffffffffffffffff19169101908152601401919050565b5f82518060208501845e5f920191825250919050565b818382375f9101908152919050565b5f8383855260208501945060208460051b820101835f603e19863603015b87821015610dcb57848403601f190189528235818112610d33575f5ffd5b87016001600160a01b03610d4682610ab6565b1685526020810135601e19823603018112610d5f575f5ffd5b016020810190356001600160401b03811115610d79575f5ffd5b803603821315610d87575f5ffd5b60406020870152806040870152808260608801375f606082880101526060601f19601f83011687010195505050602083019250602089019850600182019150610d15565b5091979650505050505050565b602081525f610deb602083018486610cf7565b949350505050565b85815284602082015260018060a01b0384166040820152608060608201525f610e20608083018486610cf7565b979650505050505050565b5f82610e4557634e487b7160e01b5f52601260045260245ffd5b500490565b805160208201516001600160e01b0319811691906004821015610e81576001600160e01b0319600483900360031b81901b82161692505b5050919050565b634e487b7160e01b5f52604160045260245ffd5b5f5f60408385031215610ead575f5ffd5b8251915060208301516001600160401b03811115610ec9575f5ffd5b8301601f81018513610ed9575f5ffd5b80516001600160401b03811115610ef257610ef2610e88565b604051601f8201601f19908116603f011681016001600160401b0381118282101715610f2057610f20610e88565b604052818152828201602001871015610f37575f5ffd5b8160208401602083015e5f60208383010152809350505050925092905056fea264697066735822122048e6acb795ed5c178de27c81e233c9dcbd6f060df6f413f5406b239374bf750364736f6c63430008250033",
}

// OrdoRouter is an auto generated Go binding around an Ethereum contract.
type OrdoRouter struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *OrdoRouter) GetABI() abi.ABI {
	return c.abi
}

// NewOrdoRouter creates a new instance of OrdoRouter.
func NewOrdoRouter() *OrdoRouter {
	parsed, err := OrdoRouterMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &OrdoRouter{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *OrdoRouter) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address[] submitters) returns()
func (ordoRouter *OrdoRouter) PackConstructor(submitters []common.Address) []byte {
	enc, err := ordoRouter.abi.Pack("", submitters)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackApplyBatch is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x84990528.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function applyBatch(bytes32 uid, bytes32 callsHash, address submitter, (address,bytes)[] calls) returns()
func (ordoRouter *OrdoRouter) PackApplyBatch(uid [32]byte, callsHash [32]byte, submitter common.Address, calls []OrdoRouterCall) []byte {
	enc, err := ordoRouter.abi.Pack("applyBatch", uid, callsHash, submitter, calls)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackApplyBatch is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x84990528.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function applyBatch(bytes32 uid, bytes32 callsHash, address submitter, (address,bytes)[] calls) returns()
func (ordoRouter *OrdoRouter) TryPackApplyBatch(uid [32]byte, callsHash [32]byte, submitter common.Address, calls []OrdoRouterCall) ([]byte, error) {
	return ordoRouter.abi.Pack("applyBatch", uid, callsHash, submitter, calls)
}

// PackCallsHashOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe2cdb436.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function callsHashOf((address,bytes)[] calls) pure returns(bytes32)
func (ordoRouter *OrdoRouter) PackCallsHashOf(calls []OrdoRouterCall) []byte {
	enc, err := ordoRouter.abi.Pack("callsHashOf", calls)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCallsHashOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe2cdb436.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function callsHashOf((address,bytes)[] calls) pure returns(bytes32)
func (ordoRouter *OrdoRouter) TryPackCallsHashOf(calls []OrdoRouterCall) ([]byte, error) {
	return ordoRouter.abi.Pack("callsHashOf", calls)
}

// UnpackCallsHashOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe2cdb436.
//
// Solidity: function callsHashOf((address,bytes)[] calls) pure returns(bytes32)
func (ordoRouter *OrdoRouter) UnpackCallsHashOf(data []byte) ([32]byte, error) {
	out, err := ordoRouter.abi.Unpack("callsHashOf", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackExecute is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x21b6ace6.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function execute(string memo, (address,bytes)[] calls) returns(uint8)
func (ordoRouter *OrdoRouter) PackExecute(memo string, calls []OrdoRouterCall) []byte {
	enc, err := ordoRouter.abi.Pack("execute", memo, calls)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackExecute is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x21b6ace6.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function execute(string memo, (address,bytes)[] calls) returns(uint8)
func (ordoRouter *OrdoRouter) TryPackExecute(memo string, calls []OrdoRouterCall) ([]byte, error) {
	return ordoRouter.abi.Pack("execute", memo, calls)
}

// UnpackExecute is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x21b6ace6.
//
// Solidity: function execute(string memo, (address,bytes)[] calls) returns(uint8)
func (ordoRouter *OrdoRouter) UnpackExecute(data []byte) (uint8, error) {
	out, err := ordoRouter.abi.Unpack("execute", data)
	if err != nil {
		return *new(uint8), err
	}
	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)
	return out0, nil
}

// PackExecuteStrict is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8ec30258.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function executeStrict(string memo, (address,bytes)[] calls) returns(uint8)
func (ordoRouter *OrdoRouter) PackExecuteStrict(memo string, calls []OrdoRouterCall) []byte {
	enc, err := ordoRouter.abi.Pack("executeStrict", memo, calls)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackExecuteStrict is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8ec30258.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function executeStrict(string memo, (address,bytes)[] calls) returns(uint8)
func (ordoRouter *OrdoRouter) TryPackExecuteStrict(memo string, calls []OrdoRouterCall) ([]byte, error) {
	return ordoRouter.abi.Pack("executeStrict", memo, calls)
}

// UnpackExecuteStrict is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8ec30258.
//
// Solidity: function executeStrict(string memo, (address,bytes)[] calls) returns(uint8)
func (ordoRouter *OrdoRouter) UnpackExecuteStrict(data []byte) (uint8, error) {
	out, err := ordoRouter.abi.Unpack("executeStrict", data)
	if err != nil {
		return *new(uint8), err
	}
	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)
	return out0, nil
}

// PackIsSubmitter is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa926fdbc.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isSubmitter(address submitter) view returns(bool)
func (ordoRouter *OrdoRouter) PackIsSubmitter(submitter common.Address) []byte {
	enc, err := ordoRouter.abi.Pack("isSubmitter", submitter)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIsSubmitter is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa926fdbc.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function isSubmitter(address submitter) view returns(bool)
func (ordoRouter *OrdoRouter) TryPackIsSubmitter(submitter common.Address) ([]byte, error) {
	return ordoRouter.abi.Pack("isSubmitter", submitter)
}

// UnpackIsSubmitter is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa926fdbc.
//
// Solidity: function isSubmitter(address submitter) view returns(bool)
func (ordoRouter *OrdoRouter) UnpackIsSubmitter(data []byte) (bool, error) {
	out, err := ordoRouter.abi.Unpack("isSubmitter", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function owner() view returns(address)
func (ordoRouter *OrdoRouter) PackOwner() []byte {
	enc, err := ordoRouter.abi.Pack("owner")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackOwner is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8da5cb5b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function owner() view returns(address)
func (ordoRouter *OrdoRouter) TryPackOwner() ([]byte, error) {
	return ordoRouter.abi.Pack("owner")
}

// UnpackOwner is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8da5cb5b.
//
// Solidity: function owner() view returns(address)
func (ordoRouter *OrdoRouter) UnpackOwner(data []byte) (common.Address, error) {
	out, err := ordoRouter.abi.Unpack("owner", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackRecords is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x01e64725.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function records(bytes32 uid) view returns(uint64 appliedAt, bytes24 callsHash)
func (ordoRouter *OrdoRouter) PackRecords(uid [32]byte) []byte {
	enc, err := ordoRouter.abi.Pack("records", uid)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRecords is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x01e64725.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function records(bytes32 uid) view returns(uint64 appliedAt, bytes24 callsHash)
func (ordoRouter *OrdoRouter) TryPackRecords(uid [32]byte) ([]byte, error) {
	return ordoRouter.abi.Pack("records", uid)
}

// RecordsOutput serves as a container for the return parameters of contract
// method Records.
type RecordsOutput struct {
	AppliedAt uint64
	CallsHash [24]byte
}

// UnpackRecords is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x01e64725.
//
// Solidity: function records(bytes32 uid) view returns(uint64 appliedAt, bytes24 callsHash)
func (ordoRouter *OrdoRouter) UnpackRecords(data []byte) (RecordsOutput, error) {
	out, err := ordoRouter.abi.Unpack("records", data)
	outstruct := new(RecordsOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.AppliedAt = *abi.ConvertType(out[0], new(uint64)).(*uint64)
	outstruct.CallsHash = *abi.ConvertType(out[1], new([24]byte)).(*[24]byte)
	return *outstruct, nil
}

// PackSetSubmitter is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x96fbdc99.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setSubmitter(address submitter, bool allowed) returns()
func (ordoRouter *OrdoRouter) PackSetSubmitter(submitter common.Address, allowed bool) []byte {
	enc, err := ordoRouter.abi.Pack("setSubmitter", submitter, allowed)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSetSubmitter is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x96fbdc99.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function setSubmitter(address submitter, bool allowed) returns()
func (ordoRouter *OrdoRouter) TryPackSetSubmitter(submitter common.Address, allowed bool) ([]byte, error) {
	return ordoRouter.abi.Pack("setSubmitter", submitter, allowed)
}

// PackTransferOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf2fde38b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferOwnership(address newOwner) returns()
func (ordoRouter *OrdoRouter) PackTransferOwnership(newOwner common.Address) []byte {
	enc, err := ordoRouter.abi.Pack("transferOwnership", newOwner)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferOwnership is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf2fde38b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferOwnership(address newOwner) returns()
func (ordoRouter *OrdoRouter) TryPackTransferOwnership(newOwner common.Address) ([]byte, error) {
	return ordoRouter.abi.Pack("transferOwnership", newOwner)
}

// PackUidOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xba512517.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function uidOf(string memo) pure returns(bytes32)
func (ordoRouter *OrdoRouter) PackUidOf(memo string) []byte {
	enc, err := ordoRouter.abi.Pack("uidOf", memo)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackUidOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xba512517.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function uidOf(string memo) pure returns(bytes32)
func (ordoRouter *OrdoRouter) TryPackUidOf(memo string) ([]byte, error) {
	return ordoRouter.abi.Pack("uidOf", memo)
}

// UnpackUidOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xba512517.
//
// Solidity: function uidOf(string memo) pure returns(bytes32)
func (ordoRouter *OrdoRouter) UnpackUidOf(data []byte) ([32]byte, error) {
	out, err := ordoRouter.abi.Unpack("uidOf", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// OrdoRouterIntentApplied represents a IntentApplied event raised by the OrdoRouter contract.
type OrdoRouterIntentApplied struct {
	Uid       [32]byte
	Submitter common.Address
	CallsHash [32]byte
	Raw       *types.Log // Blockchain specific contextual infos
}

const OrdoRouterIntentAppliedEventName = "IntentApplied"

// ContractEventName returns the user-defined event name.
func (OrdoRouterIntentApplied) ContractEventName() string {
	return OrdoRouterIntentAppliedEventName
}

// UnpackIntentAppliedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event IntentApplied(bytes32 indexed uid, address indexed submitter, bytes32 callsHash)
func (ordoRouter *OrdoRouter) UnpackIntentAppliedEvent(log *types.Log) (*OrdoRouterIntentApplied, error) {
	event := "IntentApplied"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != ordoRouter.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(OrdoRouterIntentApplied)
	if len(log.Data) > 0 {
		if err := ordoRouter.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range ordoRouter.abi.Events[event].Inputs {
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

// OrdoRouterIntentConflict represents a IntentConflict event raised by the OrdoRouter contract.
type OrdoRouterIntentConflict struct {
	Uid       [32]byte
	Submitter common.Address
	CallsHash [32]byte
	AppliedAt uint64
	Raw       *types.Log // Blockchain specific contextual infos
}

const OrdoRouterIntentConflictEventName = "IntentConflict"

// ContractEventName returns the user-defined event name.
func (OrdoRouterIntentConflict) ContractEventName() string {
	return OrdoRouterIntentConflictEventName
}

// UnpackIntentConflictEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event IntentConflict(bytes32 indexed uid, address indexed submitter, bytes32 callsHash, uint64 appliedAt)
func (ordoRouter *OrdoRouter) UnpackIntentConflictEvent(log *types.Log) (*OrdoRouterIntentConflict, error) {
	event := "IntentConflict"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != ordoRouter.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(OrdoRouterIntentConflict)
	if len(log.Data) > 0 {
		if err := ordoRouter.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range ordoRouter.abi.Events[event].Inputs {
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

// OrdoRouterIntentDuplicate represents a IntentDuplicate event raised by the OrdoRouter contract.
type OrdoRouterIntentDuplicate struct {
	Uid       [32]byte
	Submitter common.Address
	AppliedAt uint64
	Raw       *types.Log // Blockchain specific contextual infos
}

const OrdoRouterIntentDuplicateEventName = "IntentDuplicate"

// ContractEventName returns the user-defined event name.
func (OrdoRouterIntentDuplicate) ContractEventName() string {
	return OrdoRouterIntentDuplicateEventName
}

// UnpackIntentDuplicateEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event IntentDuplicate(bytes32 indexed uid, address indexed submitter, uint64 appliedAt)
func (ordoRouter *OrdoRouter) UnpackIntentDuplicateEvent(log *types.Log) (*OrdoRouterIntentDuplicate, error) {
	event := "IntentDuplicate"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != ordoRouter.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(OrdoRouterIntentDuplicate)
	if len(log.Data) > 0 {
		if err := ordoRouter.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range ordoRouter.abi.Events[event].Inputs {
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

// OrdoRouterIntentFailed represents a IntentFailed event raised by the OrdoRouter contract.
type OrdoRouterIntentFailed struct {
	Uid       [32]byte
	Submitter common.Address
	Index     *big.Int
	Reason    []byte
	Raw       *types.Log // Blockchain specific contextual infos
}

const OrdoRouterIntentFailedEventName = "IntentFailed"

// ContractEventName returns the user-defined event name.
func (OrdoRouterIntentFailed) ContractEventName() string {
	return OrdoRouterIntentFailedEventName
}

// UnpackIntentFailedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event IntentFailed(bytes32 indexed uid, address indexed submitter, uint256 index, bytes reason)
func (ordoRouter *OrdoRouter) UnpackIntentFailedEvent(log *types.Log) (*OrdoRouterIntentFailed, error) {
	event := "IntentFailed"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != ordoRouter.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(OrdoRouterIntentFailed)
	if len(log.Data) > 0 {
		if err := ordoRouter.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range ordoRouter.abi.Events[event].Inputs {
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

// OrdoRouterOwnerChanged represents a OwnerChanged event raised by the OrdoRouter contract.
type OrdoRouterOwnerChanged struct {
	PreviousOwner common.Address
	NewOwner      common.Address
	Raw           *types.Log // Blockchain specific contextual infos
}

const OrdoRouterOwnerChangedEventName = "OwnerChanged"

// ContractEventName returns the user-defined event name.
func (OrdoRouterOwnerChanged) ContractEventName() string {
	return OrdoRouterOwnerChangedEventName
}

// UnpackOwnerChangedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event OwnerChanged(address indexed previousOwner, address indexed newOwner)
func (ordoRouter *OrdoRouter) UnpackOwnerChangedEvent(log *types.Log) (*OrdoRouterOwnerChanged, error) {
	event := "OwnerChanged"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != ordoRouter.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(OrdoRouterOwnerChanged)
	if len(log.Data) > 0 {
		if err := ordoRouter.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range ordoRouter.abi.Events[event].Inputs {
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

// OrdoRouterSubmitterSet represents a SubmitterSet event raised by the OrdoRouter contract.
type OrdoRouterSubmitterSet struct {
	Submitter common.Address
	Allowed   bool
	Raw       *types.Log // Blockchain specific contextual infos
}

const OrdoRouterSubmitterSetEventName = "SubmitterSet"

// ContractEventName returns the user-defined event name.
func (OrdoRouterSubmitterSet) ContractEventName() string {
	return OrdoRouterSubmitterSetEventName
}

// UnpackSubmitterSetEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event SubmitterSet(address indexed submitter, bool allowed)
func (ordoRouter *OrdoRouter) UnpackSubmitterSetEvent(log *types.Log) (*OrdoRouterSubmitterSet, error) {
	event := "SubmitterSet"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != ordoRouter.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(OrdoRouterSubmitterSet)
	if len(log.Data) > 0 {
		if err := ordoRouter.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range ordoRouter.abi.Events[event].Inputs {
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
func (ordoRouter *OrdoRouter) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], ordoRouter.abi.Errors["CallFailed"].ID.Bytes()[:4]) {
		return ordoRouter.UnpackCallFailedError(raw[4:])
	}
	if bytes.Equal(raw[:4], ordoRouter.abi.Errors["IntentAlreadyApplied"].ID.Bytes()[:4]) {
		return ordoRouter.UnpackIntentAlreadyAppliedError(raw[4:])
	}
	if bytes.Equal(raw[:4], ordoRouter.abi.Errors["IntentConflicts"].ID.Bytes()[:4]) {
		return ordoRouter.UnpackIntentConflictsError(raw[4:])
	}
	if bytes.Equal(raw[:4], ordoRouter.abi.Errors["NotOwner"].ID.Bytes()[:4]) {
		return ordoRouter.UnpackNotOwnerError(raw[4:])
	}
	if bytes.Equal(raw[:4], ordoRouter.abi.Errors["NotSubmitter"].ID.Bytes()[:4]) {
		return ordoRouter.UnpackNotSubmitterError(raw[4:])
	}
	if bytes.Equal(raw[:4], ordoRouter.abi.Errors["OnlySelf"].ID.Bytes()[:4]) {
		return ordoRouter.UnpackOnlySelfError(raw[4:])
	}
	if bytes.Equal(raw[:4], ordoRouter.abi.Errors["OutOfGas"].ID.Bytes()[:4]) {
		return ordoRouter.UnpackOutOfGasError(raw[4:])
	}
	if bytes.Equal(raw[:4], ordoRouter.abi.Errors["TargetHasNoCode"].ID.Bytes()[:4]) {
		return ordoRouter.UnpackTargetHasNoCodeError(raw[4:])
	}
	if bytes.Equal(raw[:4], ordoRouter.abi.Errors["TargetIsRouter"].ID.Bytes()[:4]) {
		return ordoRouter.UnpackTargetIsRouterError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// OrdoRouterCallFailed represents a CallFailed error raised by the OrdoRouter contract.
type OrdoRouterCallFailed struct {
	Index  *big.Int
	Reason []byte
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error CallFailed(uint256 index, bytes reason)
func OrdoRouterCallFailedErrorID() common.Hash {
	return common.HexToHash("0x5c0dee5d32a1e145396705da49c1e64a2b1d63387f78c2697100f655567f5de9")
}

// UnpackCallFailedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error CallFailed(uint256 index, bytes reason)
func (ordoRouter *OrdoRouter) UnpackCallFailedError(raw []byte) (*OrdoRouterCallFailed, error) {
	out := new(OrdoRouterCallFailed)
	if err := ordoRouter.abi.UnpackIntoInterface(out, "CallFailed", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// OrdoRouterIntentAlreadyApplied represents a IntentAlreadyApplied error raised by the OrdoRouter contract.
type OrdoRouterIntentAlreadyApplied struct {
	Uid       [32]byte
	AppliedAt uint64
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error IntentAlreadyApplied(bytes32 uid, uint64 appliedAt)
func OrdoRouterIntentAlreadyAppliedErrorID() common.Hash {
	return common.HexToHash("0x1242d9b404765a160f4e3f235c319fece220ce032b34d39688aa57d2855c885b")
}

// UnpackIntentAlreadyAppliedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error IntentAlreadyApplied(bytes32 uid, uint64 appliedAt)
func (ordoRouter *OrdoRouter) UnpackIntentAlreadyAppliedError(raw []byte) (*OrdoRouterIntentAlreadyApplied, error) {
	out := new(OrdoRouterIntentAlreadyApplied)
	if err := ordoRouter.abi.UnpackIntoInterface(out, "IntentAlreadyApplied", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// OrdoRouterIntentConflicts represents a IntentConflicts error raised by the OrdoRouter contract.
type OrdoRouterIntentConflicts struct {
	Uid       [32]byte
	AppliedAt uint64
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error IntentConflicts(bytes32 uid, uint64 appliedAt)
func OrdoRouterIntentConflictsErrorID() common.Hash {
	return common.HexToHash("0x749d9841ca6372377e357f70e5d7897c597877c8d3979feae411194a7e9e6bb1")
}

// UnpackIntentConflictsError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error IntentConflicts(bytes32 uid, uint64 appliedAt)
func (ordoRouter *OrdoRouter) UnpackIntentConflictsError(raw []byte) (*OrdoRouterIntentConflicts, error) {
	out := new(OrdoRouterIntentConflicts)
	if err := ordoRouter.abi.UnpackIntoInterface(out, "IntentConflicts", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// OrdoRouterNotOwner represents a NotOwner error raised by the OrdoRouter contract.
type OrdoRouterNotOwner struct {
	Caller common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotOwner(address caller)
func OrdoRouterNotOwnerErrorID() common.Hash {
	return common.HexToHash("0x245aecd3fabbd17d6c3c92dc7f0ab916ea8cbf6fc1862c8b56893090ac3fff4c")
}

// UnpackNotOwnerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotOwner(address caller)
func (ordoRouter *OrdoRouter) UnpackNotOwnerError(raw []byte) (*OrdoRouterNotOwner, error) {
	out := new(OrdoRouterNotOwner)
	if err := ordoRouter.abi.UnpackIntoInterface(out, "NotOwner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// OrdoRouterNotSubmitter represents a NotSubmitter error raised by the OrdoRouter contract.
type OrdoRouterNotSubmitter struct {
	Caller common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotSubmitter(address caller)
func OrdoRouterNotSubmitterErrorID() common.Hash {
	return common.HexToHash("0x16a049ca9f83d1910b3891eb48d94e59809f80c6be02e8251dc3fbabd5d65eb4")
}

// UnpackNotSubmitterError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotSubmitter(address caller)
func (ordoRouter *OrdoRouter) UnpackNotSubmitterError(raw []byte) (*OrdoRouterNotSubmitter, error) {
	out := new(OrdoRouterNotSubmitter)
	if err := ordoRouter.abi.UnpackIntoInterface(out, "NotSubmitter", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// OrdoRouterOnlySelf represents a OnlySelf error raised by the OrdoRouter contract.
type OrdoRouterOnlySelf struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error OnlySelf()
func OrdoRouterOnlySelfErrorID() common.Hash {
	return common.HexToHash("0x14d4a4e8a5140da60b7a280478fb427da973ca582a83cf5dbad8c5f2abee9ba4")
}

// UnpackOnlySelfError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error OnlySelf()
func (ordoRouter *OrdoRouter) UnpackOnlySelfError(raw []byte) (*OrdoRouterOnlySelf, error) {
	out := new(OrdoRouterOnlySelf)
	if err := ordoRouter.abi.UnpackIntoInterface(out, "OnlySelf", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// OrdoRouterOutOfGas represents a OutOfGas error raised by the OrdoRouter contract.
type OrdoRouterOutOfGas struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error OutOfGas()
func OrdoRouterOutOfGasErrorID() common.Hash {
	return common.HexToHash("0x77ebef4d460014cfc45ab055292b3a8f4a7c9e9ab42973e79fdaff6b27233461")
}

// UnpackOutOfGasError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error OutOfGas()
func (ordoRouter *OrdoRouter) UnpackOutOfGasError(raw []byte) (*OrdoRouterOutOfGas, error) {
	out := new(OrdoRouterOutOfGas)
	if err := ordoRouter.abi.UnpackIntoInterface(out, "OutOfGas", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// OrdoRouterTargetHasNoCode represents a TargetHasNoCode error raised by the OrdoRouter contract.
type OrdoRouterTargetHasNoCode struct {
	Target common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error TargetHasNoCode(address target)
func OrdoRouterTargetHasNoCodeErrorID() common.Hash {
	return common.HexToHash("0xfff2336135e4e25ec2ef678e3aa2208c3173823078ab27568217e0092ca50fa7")
}

// UnpackTargetHasNoCodeError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error TargetHasNoCode(address target)
func (ordoRouter *OrdoRouter) UnpackTargetHasNoCodeError(raw []byte) (*OrdoRouterTargetHasNoCode, error) {
	out := new(OrdoRouterTargetHasNoCode)
	if err := ordoRouter.abi.UnpackIntoInterface(out, "TargetHasNoCode", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// OrdoRouterTargetIsRouter represents a TargetIsRouter error raised by the OrdoRouter contract.
type OrdoRouterTargetIsRouter struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error TargetIsRouter()
func OrdoRouterTargetIsRouterErrorID() common.Hash {
	return common.HexToHash("0xce4c171bc734c16b76e9dcf229fc0d7e68cb39d9d7828bf9264768b2445f7d22")
}

// UnpackTargetIsRouterError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error TargetIsRouter()
func (ordoRouter *OrdoRouter) UnpackTargetIsRouterError(raw []byte) (*OrdoRouterTargetIsRouter, error) {
	out := new(OrdoRouterTargetIsRouter)
	if err := ordoRouter.abi.UnpackIntoInterface(out, "TargetIsRouter", raw); err != nil {
		return nil, err
	}
	return out, nil
}
