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

// ToolRegistryTool is an auto generated low-level Go binding around an user-defined struct.
type ToolRegistryTool struct {
	Tool         string
	Url          string
	InputSchema  string
	OutputSchema string
	Owner        common.Address
	Version      uint64
}

// ToolRegistryMetaData contains all meta data concerning the ToolRegistry contract.
var ToolRegistryMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"router\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"tool\",\"type\":\"string\"}],\"name\":\"NotFound\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"string\",\"name\":\"tool\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"version\",\"type\":\"uint64\"}],\"name\":\"ToolDeregistered\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"string\",\"name\":\"tool\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"url\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"version\",\"type\":\"uint64\"}],\"name\":\"ToolRegistered\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"MAX_TOOLS\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MAX_TOOL_NAME\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MAX_TOOL_SCHEMA\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MAX_TOOL_URL\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"_tool\",\"type\":\"string\"}],\"name\":\"deregister\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"forwarder\",\"type\":\"address\"}],\"name\":\"isTrustedForwarder\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"_tool\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"url\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"inputSchema\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"outputSchema\",\"type\":\"string\"}],\"name\":\"register\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"registered\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"_tool\",\"type\":\"string\"}],\"name\":\"tool\",\"outputs\":[{\"components\":[{\"internalType\":\"string\",\"name\":\"tool\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"url\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"inputSchema\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"outputSchema\",\"type\":\"string\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"version\",\"type\":\"uint64\"}],\"internalType\":\"structToolRegistry.Tool\",\"name\":\"\",\"type\":\"tuple\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"trustedRouter\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"_tool\",\"type\":\"string\"}],\"name\":\"version\",\"outputs\":[{\"internalType\":\"uint64\",\"name\":\"\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "ToolRegistry",
	Bin: "0x60a0604052348015600e575f5ffd5b506040516115a33803806115a3833981016040819052602b91603b565b6001600160a01b03166080526066565b5f60208284031215604a575f5ffd5b81516001600160a01b0381168114605f575f5ffd5b9392505050565b60805161151761008c5f395f818161011f015281816101840152610e4801526115175ff3fe608060405234801561000f575f5ffd5b50600436106100a6575f3560e01c8063784d83821161006e578063784d83821461015f5780639acda3bb1461017f578063a83aa0bc146101be578063d5d33e25146101c6578063e5b7afaa146101cf578063ea3855bd146101e2575f5ffd5b806308fb3464146100aa5780630e24c52c146100da57806326a0a5ae146100ef5780632de40ce314610106578063572b6c051461010f575b5f5ffd5b6100bd6100b8366004610fc6565b6101eb565b6040516001600160401b0390911681526020015b60405180910390f35b6100ed6100e8366004611004565b61022a565b005b6100f861040081565b6040519081526020016100d1565b6100f860025481565b61014f61011d3660046110ce565b7f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0390811691161490565b60405190151581526020016100d1565b61017261016d366004610fc6565b6105e4565b6040516100d19190611122565b6101a67f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b0390911681526020016100d1565b6100f8604081565b6100f861080081565b6100ed6101dd366004610fc6565b610908565b6100f861400081565b5f60015f84846040516101ff9291906111c8565b604080519182900390912082526020820192909252015f20546001600160401b031690505b92915050565b6102348888610aca565b61023e8686610c3b565b6102c85760405162461bcd60e51b815260206004820152604a60248201527f72656769737472793a2075726c206d75737420626520616e2068747470206f7260448201527f2068747470732055524c2077697468206120686f73742c206174206d6f7374206064820152693230343820627974657360b01b608482015260a4015b60405180910390fd5b6102d28484610d75565b61034f5760405162461bcd60e51b815260206004820152604260248201527f72656769737472793a20696e707574536368656d61206d75737420626520612060448201527f4a534f4e206f626a656374206f66206174206d6f737420313633383420627974606482015261657360f01b608482015260a4016102bf565b6103598282610d75565b6103d75760405162461bcd60e51b815260206004820152604360248201527f72656769737472793a206f7574707574536368656d61206d757374206265206160448201527f204a534f4e206f626a656374206f66206174206d6f737420313633383420627960648201526274657360e81b608482015260a4016102bf565b5f88886040516103e89291906111c8565b60408051918290039091205f81815260208190529182209092509061040b610e3c565b60048301549091506001600160a01b03166104a857610400600254106104645760405162461bcd60e51b815260206004820152600e60248201526d746f6f5f6d616e795f746f6f6c7360901b60448201526064016102bf565b60028054905f610473836111eb565b909155508290506104858b8d836112a5565b506004820180546001600160a01b0319166001600160a01b0383161790556104f3565b60048201546001600160a01b038281169116146104f35760405162461bcd60e51b81526020600482015260096024820152683737ba2fb7bbb732b960b91b60448201526064016102bf565b5f83815260016020526040812080548290610516906001600160401b031661135e565b91906101000a8154816001600160401b0302191690836001600160401b0316021790559050898984600101918261054e9291906112a5565b506002830161055e888a836112a5565b506003830161056e8688836112a5565b5060048301805467ffffffffffffffff60a01b1916600160a01b6001600160401b038416021790556040517ffeb10b68b5b060ff970a6679f094fd266113332da1955aa719286fc260b31a2c906105ce908e908e908e908e9087906113b0565b60405180910390a1505050505050505050505050565b61062d6040518060c00160405280606081526020016060815260200160608152602001606081526020015f6001600160a01b031681526020015f6001600160401b031681525090565b5f5f5f85856040516106409291906111c8565b604080519182900390912082526020820192909252015f2060048101549091506001600160a01b031661068a57838360405163181ef97760e21b81526004016102bf9291906113f2565b806040518060c00160405290815f820180546106a590611217565b80601f01602080910402602001604051908101604052809291908181526020018280546106d190611217565b801561071c5780601f106106f35761010080835404028352916020019161071c565b820191905f5260205f20905b8154815290600101906020018083116106ff57829003601f168201915b5050505050815260200160018201805461073590611217565b80601f016020809104026020016040519081016040528092919081815260200182805461076190611217565b80156107ac5780601f10610783576101008083540402835291602001916107ac565b820191905f5260205f20905b81548152906001019060200180831161078f57829003601f168201915b505050505081526020016002820180546107c590611217565b80601f01602080910402602001604051908101604052809291908181526020018280546107f190611217565b801561083c5780601f106108135761010080835404028352916020019161083c565b820191905f5260205f20905b81548152906001019060200180831161081f57829003601f168201915b5050505050815260200160038201805461085590611217565b80601f016020809104026020016040519081016040528092919081815260200182805461088190611217565b80156108cc5780601f106108a3576101008083540402835291602001916108cc565b820191905f5260205f20905b8154815290600101906020018083116108af57829003601f168201915b5050509183525050600491909101546001600160a01b0381166020830152600160a01b90046001600160401b0316604090910152949350505050565b6109128282610aca565b5f82826040516109239291906111c8565b60408051918290039091205f8181526020819052919091206004810154919250906001600160a01b03166109885760405162461bcd60e51b815260206004820152600c60248201526b1b9bd7dcdd58da17dd1bdbdb60a21b60448201526064016102bf565b610990610e3c565b60048201546001600160a01b039081169116146109db5760405162461bcd60e51b81526020600482015260096024820152683737ba2fb7bbb732b960b91b60448201526064016102bf565b60028054905f6109ea83611405565b90915550505f82815260016020526040812080548290610a12906001600160401b031661135e565b82546001600160401b038083166101009490940a93840293021916919091179091555f848152602081905260408120919250610a4e8282610f30565b610a5b600183015f610f30565b610a68600283015f610f30565b610a75600383015f610f30565b5060040180546001600160e01b03191690556040517fc4757029444af9a23393044c350d07149a22a276bcebd8ddf611bab2edf6adcd90610abb9087908790859061141a565b60405180910390a15050505050565b81815f8115801590610add575060408211155b90505f5b818015610aed57508281105b15610bc8575f848483818110610b0557610b05611446565b909101356001600160f81b031916915050606160f81b8110801590610b385750603d60f91b6001600160f81b0319821611155b80610b6a5750600360fc1b6001600160f81b0319821610801590610b6a5750603960f81b6001600160f81b0319821611155b80610b825750605f60f81b6001600160f81b03198216145b80610b9a5750602d60f81b6001600160f81b03198216145b80610bb25750601760f91b6001600160f81b03198216145b9250508080610bc0906111eb565b915050610ae1565b5080610c345760405162461bcd60e51b815260206004820152603560248201527f72656769737472793a20746f6f6c206d75737420626520312d36342063686172604482015274616374657273206f66205b612d7a302d395f2e2d5d60581b60648201526084016102bf565b5050505050565b5f610800821115610c4d57505f610224565b5f610c7984846040518060400160405280600881526020016768747470733a2f2f60c01b815250610ea9565b610cb857610ca7848460405180604001604052806007815260200166687474703a2f2f60c81b815250610ea9565b610cb1575f610cbb565b6007610cbb565b60085b60ff1690508015801590610cce57508083115b8015610d035750838382818110610ce757610ce7611446565b9050013560f81c60f81b6001600160f81b031916602f60f81b14155b8015610d385750838382818110610d1c57610d1c611446565b9050013560f81c60f81b6001600160f81b031916603f60f81b14155b8015610d6d5750838382818110610d5157610d51611446565b9050013560f81c60f81b6001600160f81b031916602360f81b14155b949350505050565b5f614000821115610d8757505f610224565b5f5b82811015610e33575f848483818110610da457610da4611446565b909101356001600160f81b031916915050600160fd1b8114801590610dd75750600960f81b6001600160f81b0319821614155b8015610df15750600560f91b6001600160f81b0319821614155b8015610e0b5750600d60f81b6001600160f81b0319821614155b15610e2a57806001600160f81b031916607b60f81b1492505050610224565b50600101610d89565b505f9392505050565b5f336001600160a01b037f000000000000000000000000000000000000000000000000000000000000000016148015610e76575060143610155b15610ea4575f36610e8860148261145a565b610e9392829061146d565b610e9c91611494565b60601c905090565b503390565b80515f90831015610ebb57505f610f29565b5f5b8251811015610f2357828181518110610ed857610ed8611446565b01602001516001600160f81b031916858583818110610ef957610ef9611446565b9050013560f81c60f81b6001600160f81b03191614610f1b575f915050610f29565b600101610ebd565b50600190505b9392505050565b508054610f3c90611217565b5f825580601f10610f4b575050565b601f0160209004905f5260205f2090610f649190610f66565b565b5f5b80821115610f7d575f81840155600101610f68565b505050565b5f5f83601f840112610f92575f5ffd5b5081356001600160401b03811115610fa8575f5ffd5b602083019150836020828501011115610fbf575f5ffd5b9250929050565b5f5f60208385031215610fd7575f5ffd5b82356001600160401b03811115610fec575f5ffd5b610ff885828601610f82565b90969095509350505050565b5f5f5f5f5f5f5f5f6080898b03121561101b575f5ffd5b88356001600160401b03811115611030575f5ffd5b61103c8b828c01610f82565b90995097505060208901356001600160401b0381111561105a575f5ffd5b6110668b828c01610f82565b90975095505060408901356001600160401b03811115611084575f5ffd5b6110908b828c01610f82565b90955093505060608901356001600160401b038111156110ae575f5ffd5b6110ba8b828c01610f82565b999c989b5096995094979396929594505050565b5f602082840312156110de575f5ffd5b81356001600160a01b0381168114610f29575f5ffd5b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b602081525f825160c0602084015261113d60e08401826110f4565b90506020840151601f1984830301604085015261115a82826110f4565b9150506040840151601f1984830301606085015261117882826110f4565b9150506060840151601f1984830301608085015261119682826110f4565b91505060018060a01b0360808501511660a08401526001600160401b0360a08501511660c08401528091505092915050565b818382375f9101908152919050565b634e487b7160e01b5f52601160045260245ffd5b5f600182016111fc576111fc6111d7565b5060010190565b634e487b7160e01b5f52604160045260245ffd5b600181811c9082168061122b57607f821691505b60208210810361124957634e487b7160e01b5f52602260045260245ffd5b50919050565b601f821115610f7d5782821115610f7d57805f5260205f20601f840160051c602085101561127a57505f5b90810190601f840160051c035f5b8181101561129d575f83820155600101611288565b505050505050565b6001600160401b038311156112bc576112bc611203565b6112d0836112ca8354611217565b8361124f565b5f601f841160018114611301575f85156112ea5750838201355b5f19600387901b1c1916600186901b178355610c34565b5f83815260208120601f198716915b828110156113305786850135825560209485019460019092019101611310565b508682101561134c575f1960f88860031b161c19848701351681555b505060018560011b0183555050505050565b5f6001600160401b0382166001600160401b03810361137f5761137f6111d7565b60010192915050565b81835281816020850137505f828201602090810191909152601f909101601f19169091010190565b606081525f6113c3606083018789611388565b82810360208401526113d6818688611388565b9150506001600160401b03831660408301529695505050505050565b602081525f610d6d602083018486611388565b5f81611413576114136111d7565b505f190190565b604081525f61142d604083018587611388565b90506001600160401b0383166020830152949350505050565b634e487b7160e01b5f52603260045260245ffd5b81810381811115610224576102246111d7565b5f5f8585111561147b575f5ffd5b83861115611487575f5ffd5b5050820193919092039150565b80356bffffffffffffffffffffffff1981169060148410156114da576bffffffffffffffffffffffff196bffffffffffffffffffffffff198560140360031b1b82161691505b509291505056fea26469706673582212207aaa03b488e5db2da508b270f8ce6442f7e0c1da7dcd8329041f0ce3d2693fa964736f6c63430008250033",
}

// ToolRegistry is an auto generated Go binding around an Ethereum contract.
type ToolRegistry struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *ToolRegistry) GetABI() abi.ABI {
	return c.abi
}

// NewToolRegistry creates a new instance of ToolRegistry.
func NewToolRegistry() *ToolRegistry {
	parsed, err := ToolRegistryMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &ToolRegistry{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *ToolRegistry) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address router) returns()
func (toolRegistry *ToolRegistry) PackConstructor(router common.Address) []byte {
	enc, err := toolRegistry.abi.Pack("", router)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackMAXTOOLS is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x26a0a5ae.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_TOOLS() view returns(uint256)
func (toolRegistry *ToolRegistry) PackMAXTOOLS() []byte {
	enc, err := toolRegistry.abi.Pack("MAX_TOOLS")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXTOOLS is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x26a0a5ae.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_TOOLS() view returns(uint256)
func (toolRegistry *ToolRegistry) TryPackMAXTOOLS() ([]byte, error) {
	return toolRegistry.abi.Pack("MAX_TOOLS")
}

// UnpackMAXTOOLS is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x26a0a5ae.
//
// Solidity: function MAX_TOOLS() view returns(uint256)
func (toolRegistry *ToolRegistry) UnpackMAXTOOLS(data []byte) (*big.Int, error) {
	out, err := toolRegistry.abi.Unpack("MAX_TOOLS", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackMAXTOOLNAME is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa83aa0bc.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_TOOL_NAME() view returns(uint256)
func (toolRegistry *ToolRegistry) PackMAXTOOLNAME() []byte {
	enc, err := toolRegistry.abi.Pack("MAX_TOOL_NAME")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXTOOLNAME is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa83aa0bc.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_TOOL_NAME() view returns(uint256)
func (toolRegistry *ToolRegistry) TryPackMAXTOOLNAME() ([]byte, error) {
	return toolRegistry.abi.Pack("MAX_TOOL_NAME")
}

// UnpackMAXTOOLNAME is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa83aa0bc.
//
// Solidity: function MAX_TOOL_NAME() view returns(uint256)
func (toolRegistry *ToolRegistry) UnpackMAXTOOLNAME(data []byte) (*big.Int, error) {
	out, err := toolRegistry.abi.Unpack("MAX_TOOL_NAME", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackMAXTOOLSCHEMA is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xea3855bd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_TOOL_SCHEMA() view returns(uint256)
func (toolRegistry *ToolRegistry) PackMAXTOOLSCHEMA() []byte {
	enc, err := toolRegistry.abi.Pack("MAX_TOOL_SCHEMA")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXTOOLSCHEMA is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xea3855bd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_TOOL_SCHEMA() view returns(uint256)
func (toolRegistry *ToolRegistry) TryPackMAXTOOLSCHEMA() ([]byte, error) {
	return toolRegistry.abi.Pack("MAX_TOOL_SCHEMA")
}

// UnpackMAXTOOLSCHEMA is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xea3855bd.
//
// Solidity: function MAX_TOOL_SCHEMA() view returns(uint256)
func (toolRegistry *ToolRegistry) UnpackMAXTOOLSCHEMA(data []byte) (*big.Int, error) {
	out, err := toolRegistry.abi.Unpack("MAX_TOOL_SCHEMA", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackMAXTOOLURL is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd5d33e25.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_TOOL_URL() view returns(uint256)
func (toolRegistry *ToolRegistry) PackMAXTOOLURL() []byte {
	enc, err := toolRegistry.abi.Pack("MAX_TOOL_URL")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXTOOLURL is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd5d33e25.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_TOOL_URL() view returns(uint256)
func (toolRegistry *ToolRegistry) TryPackMAXTOOLURL() ([]byte, error) {
	return toolRegistry.abi.Pack("MAX_TOOL_URL")
}

// UnpackMAXTOOLURL is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xd5d33e25.
//
// Solidity: function MAX_TOOL_URL() view returns(uint256)
func (toolRegistry *ToolRegistry) UnpackMAXTOOLURL(data []byte) (*big.Int, error) {
	out, err := toolRegistry.abi.Unpack("MAX_TOOL_URL", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackDeregister is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe5b7afaa.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function deregister(string _tool) returns()
func (toolRegistry *ToolRegistry) PackDeregister(tool string) []byte {
	enc, err := toolRegistry.abi.Pack("deregister", tool)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDeregister is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe5b7afaa.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function deregister(string _tool) returns()
func (toolRegistry *ToolRegistry) TryPackDeregister(tool string) ([]byte, error) {
	return toolRegistry.abi.Pack("deregister", tool)
}

// PackIsTrustedForwarder is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x572b6c05.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isTrustedForwarder(address forwarder) view returns(bool)
func (toolRegistry *ToolRegistry) PackIsTrustedForwarder(forwarder common.Address) []byte {
	enc, err := toolRegistry.abi.Pack("isTrustedForwarder", forwarder)
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
func (toolRegistry *ToolRegistry) TryPackIsTrustedForwarder(forwarder common.Address) ([]byte, error) {
	return toolRegistry.abi.Pack("isTrustedForwarder", forwarder)
}

// UnpackIsTrustedForwarder is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x572b6c05.
//
// Solidity: function isTrustedForwarder(address forwarder) view returns(bool)
func (toolRegistry *ToolRegistry) UnpackIsTrustedForwarder(data []byte) (bool, error) {
	out, err := toolRegistry.abi.Unpack("isTrustedForwarder", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackRegister is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0e24c52c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function register(string _tool, string url, string inputSchema, string outputSchema) returns()
func (toolRegistry *ToolRegistry) PackRegister(tool string, url string, inputSchema string, outputSchema string) []byte {
	enc, err := toolRegistry.abi.Pack("register", tool, url, inputSchema, outputSchema)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRegister is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0e24c52c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function register(string _tool, string url, string inputSchema, string outputSchema) returns()
func (toolRegistry *ToolRegistry) TryPackRegister(tool string, url string, inputSchema string, outputSchema string) ([]byte, error) {
	return toolRegistry.abi.Pack("register", tool, url, inputSchema, outputSchema)
}

// PackRegistered is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2de40ce3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function registered() view returns(uint256)
func (toolRegistry *ToolRegistry) PackRegistered() []byte {
	enc, err := toolRegistry.abi.Pack("registered")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRegistered is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x2de40ce3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function registered() view returns(uint256)
func (toolRegistry *ToolRegistry) TryPackRegistered() ([]byte, error) {
	return toolRegistry.abi.Pack("registered")
}

// UnpackRegistered is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x2de40ce3.
//
// Solidity: function registered() view returns(uint256)
func (toolRegistry *ToolRegistry) UnpackRegistered(data []byte) (*big.Int, error) {
	out, err := toolRegistry.abi.Unpack("registered", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackTool is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x784d8382.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function tool(string _tool) view returns((string,string,string,string,address,uint64))
func (toolRegistry *ToolRegistry) PackTool(tool string) []byte {
	enc, err := toolRegistry.abi.Pack("tool", tool)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTool is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x784d8382.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function tool(string _tool) view returns((string,string,string,string,address,uint64))
func (toolRegistry *ToolRegistry) TryPackTool(tool string) ([]byte, error) {
	return toolRegistry.abi.Pack("tool", tool)
}

// UnpackTool is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x784d8382.
//
// Solidity: function tool(string _tool) view returns((string,string,string,string,address,uint64))
func (toolRegistry *ToolRegistry) UnpackTool(data []byte) (ToolRegistryTool, error) {
	out, err := toolRegistry.abi.Unpack("tool", data)
	if err != nil {
		return *new(ToolRegistryTool), err
	}
	out0 := *abi.ConvertType(out[0], new(ToolRegistryTool)).(*ToolRegistryTool)
	return out0, nil
}

// PackTrustedRouter is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9acda3bb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function trustedRouter() view returns(address)
func (toolRegistry *ToolRegistry) PackTrustedRouter() []byte {
	enc, err := toolRegistry.abi.Pack("trustedRouter")
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
func (toolRegistry *ToolRegistry) TryPackTrustedRouter() ([]byte, error) {
	return toolRegistry.abi.Pack("trustedRouter")
}

// UnpackTrustedRouter is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x9acda3bb.
//
// Solidity: function trustedRouter() view returns(address)
func (toolRegistry *ToolRegistry) UnpackTrustedRouter(data []byte) (common.Address, error) {
	out, err := toolRegistry.abi.Unpack("trustedRouter", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackVersion is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x08fb3464.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function version(string _tool) view returns(uint64)
func (toolRegistry *ToolRegistry) PackVersion(tool string) []byte {
	enc, err := toolRegistry.abi.Pack("version", tool)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackVersion is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x08fb3464.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function version(string _tool) view returns(uint64)
func (toolRegistry *ToolRegistry) TryPackVersion(tool string) ([]byte, error) {
	return toolRegistry.abi.Pack("version", tool)
}

// UnpackVersion is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x08fb3464.
//
// Solidity: function version(string _tool) view returns(uint64)
func (toolRegistry *ToolRegistry) UnpackVersion(data []byte) (uint64, error) {
	out, err := toolRegistry.abi.Unpack("version", data)
	if err != nil {
		return *new(uint64), err
	}
	out0 := *abi.ConvertType(out[0], new(uint64)).(*uint64)
	return out0, nil
}

// ToolRegistryToolDeregistered represents a ToolDeregistered event raised by the ToolRegistry contract.
type ToolRegistryToolDeregistered struct {
	Tool    string
	Version uint64
	Raw     *types.Log // Blockchain specific contextual infos
}

const ToolRegistryToolDeregisteredEventName = "ToolDeregistered"

// ContractEventName returns the user-defined event name.
func (ToolRegistryToolDeregistered) ContractEventName() string {
	return ToolRegistryToolDeregisteredEventName
}

// UnpackToolDeregisteredEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ToolDeregistered(string tool, uint64 version)
func (toolRegistry *ToolRegistry) UnpackToolDeregisteredEvent(log *types.Log) (*ToolRegistryToolDeregistered, error) {
	event := "ToolDeregistered"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != toolRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ToolRegistryToolDeregistered)
	if len(log.Data) > 0 {
		if err := toolRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range toolRegistry.abi.Events[event].Inputs {
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

// ToolRegistryToolRegistered represents a ToolRegistered event raised by the ToolRegistry contract.
type ToolRegistryToolRegistered struct {
	Tool    string
	Url     string
	Version uint64
	Raw     *types.Log // Blockchain specific contextual infos
}

const ToolRegistryToolRegisteredEventName = "ToolRegistered"

// ContractEventName returns the user-defined event name.
func (ToolRegistryToolRegistered) ContractEventName() string {
	return ToolRegistryToolRegisteredEventName
}

// UnpackToolRegisteredEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ToolRegistered(string tool, string url, uint64 version)
func (toolRegistry *ToolRegistry) UnpackToolRegisteredEvent(log *types.Log) (*ToolRegistryToolRegistered, error) {
	event := "ToolRegistered"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != toolRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ToolRegistryToolRegistered)
	if len(log.Data) > 0 {
		if err := toolRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range toolRegistry.abi.Events[event].Inputs {
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
func (toolRegistry *ToolRegistry) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], toolRegistry.abi.Errors["NotFound"].ID.Bytes()[:4]) {
		return toolRegistry.UnpackNotFoundError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// ToolRegistryNotFound represents a NotFound error raised by the ToolRegistry contract.
type ToolRegistryNotFound struct {
	Tool string
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotFound(string tool)
func ToolRegistryNotFoundErrorID() common.Hash {
	return common.HexToHash("0x607be5dc64b1cc48d786f50883cd9879650017ea06baaa551546973e3f10503f")
}

// UnpackNotFoundError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotFound(string tool)
func (toolRegistry *ToolRegistry) UnpackNotFoundError(raw []byte) (*ToolRegistryNotFound, error) {
	out := new(ToolRegistryNotFound)
	if err := toolRegistry.abi.UnpackIntoInterface(out, "NotFound", raw); err != nil {
		return nil, err
	}
	return out, nil
}
