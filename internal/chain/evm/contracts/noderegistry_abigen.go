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

// NodeRegistryNode is an auto generated low-level Go binding around an user-defined struct.
type NodeRegistryNode struct {
	Id          [20]byte
	Account     common.Address
	Seq         uint64
	Registered  bool
	PublicKey   [32]byte
	Fingerprint [32]byte
	Endpoint    string
	Signature   []byte
}

// NodeRegistryMetaData contains all meta data concerning the NodeRegistry contract.
var NodeRegistryMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"router\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"bytes20\",\"name\":\"id\",\"type\":\"bytes20\"}],\"name\":\"NotFound\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"bytes20\",\"name\":\"id\",\"type\":\"bytes20\"},{\"internalType\":\"string\",\"name\":\"reason\",\"type\":\"string\"}],\"name\":\"Refused\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes20\",\"name\":\"id\",\"type\":\"bytes20\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"seq\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"sequence\",\"type\":\"uint64\"}],\"name\":\"NodeDeregistered\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"bytes20\",\"name\":\"id\",\"type\":\"bytes20\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"publicKey\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"fingerprint\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"endpoint\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"seq\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"sequence\",\"type\":\"uint64\"}],\"name\":\"NodeRegistered\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"MAX_ENDPOINT\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MAX_PAGE\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes20\",\"name\":\"id\",\"type\":\"bytes20\"}],\"name\":\"accountOf\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"count\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes20\",\"name\":\"id\",\"type\":\"bytes20\"},{\"internalType\":\"uint64\",\"name\":\"seq\",\"type\":\"uint64\"}],\"name\":\"deregister\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"forwarder\",\"type\":\"address\"}],\"name\":\"isTrustedForwarder\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes20\",\"name\":\"id\",\"type\":\"bytes20\"}],\"name\":\"node\",\"outputs\":[{\"components\":[{\"internalType\":\"bytes20\",\"name\":\"id\",\"type\":\"bytes20\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"seq\",\"type\":\"uint64\"},{\"internalType\":\"bool\",\"name\":\"registered\",\"type\":\"bool\"},{\"internalType\":\"bytes32\",\"name\":\"publicKey\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"fingerprint\",\"type\":\"bytes32\"},{\"internalType\":\"string\",\"name\":\"endpoint\",\"type\":\"string\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"internalType\":\"structNodeRegistry.Node\",\"name\":\"\",\"type\":\"tuple\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes20\",\"name\":\"id\",\"type\":\"bytes20\"}],\"name\":\"nodeSeq\",\"outputs\":[{\"internalType\":\"uint64\",\"name\":\"seq\",\"type\":\"uint64\"},{\"internalType\":\"bool\",\"name\":\"registered\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"start\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"limit\",\"type\":\"uint256\"}],\"name\":\"page\",\"outputs\":[{\"components\":[{\"internalType\":\"bytes20\",\"name\":\"id\",\"type\":\"bytes20\"},{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"seq\",\"type\":\"uint64\"},{\"internalType\":\"bool\",\"name\":\"registered\",\"type\":\"bool\"},{\"internalType\":\"bytes32\",\"name\":\"publicKey\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"fingerprint\",\"type\":\"bytes32\"},{\"internalType\":\"string\",\"name\":\"endpoint\",\"type\":\"string\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"internalType\":\"structNodeRegistry.Node[]\",\"name\":\"\",\"type\":\"tuple[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"bytes20\",\"name\":\"id\",\"type\":\"bytes20\"},{\"internalType\":\"bytes32\",\"name\":\"publicKey\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"fingerprint\",\"type\":\"bytes32\"},{\"internalType\":\"string\",\"name\":\"endpoint\",\"type\":\"string\"},{\"internalType\":\"uint64\",\"name\":\"seq\",\"type\":\"uint64\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"register\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"sequence\",\"outputs\":[{\"internalType\":\"uint64\",\"name\":\"\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"trustedRouter\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "NodeRegistry",
	Bin: "0x60a0604052348015600e575f5ffd5b506040516112c03803806112c0833981016040819052602b91603b565b6001600160a01b03166080526066565b5f60208284031215604a575f5ffd5b81516001600160a01b0381168114605f575f5ffd5b9392505050565b60805161123461008c5f395f8181610180015281816101ce015261093f01526112345ff3fe608060405234801561000f575f5ffd5b50600436106100b1575f3560e01c80639acda3bb1161006e5780639acda3bb146101c95780639b36e56114610208578063aa14aa4f1461021b578063abb0c3791461022e578063ba7df45e1461024e578063ebb9e69c14610256575f5ffd5b806306661abd146100b5578063079c0406146100cc57806317c6db6a146100e1578063529d15cc14610145578063572b6c051461017057806369fc09b9146101c0575b5f5ffd5b6001545b6040519081526020015b60405180910390f35b6100df6100da366004610c1f565b610276565b005b6101266100ef366004610cc0565b6001600160601b0319165f90815260208190526040902054600160a01b81046001600160401b031691600160e01b90910460ff1690565b604080516001600160401b0390931683529015156020830152016100c3565b600254610158906001600160401b031681565b6040516001600160401b0390911681526020016100c3565b6101b061017e366004610cd9565b7f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0390811691161490565b60405190151581526020016100c3565b6100b961010081565b6101f07f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b0390911681526020016100c3565b6101f0610216366004610cc0565b6105b0565b6100df610229366004610cff565b6105f1565b61024161023c366004610cc0565b610799565b6040516100c39190610e08565b6100b960ff81565b610269610264366004610e1a565b6107fc565b6040516100c39190610e3a565b876001600160601b03191660028860405160200161029691815260200190565b60408051601f19818403018152908290526102b091610e9d565b602060405180830381855afa1580156102cb573d5f5f3e3d5ffd5b5050506040513d601f19601f820116820180604052508101906102ee9190610eb3565b6001600160601b0319161461034b576040805163118cef3b60e01b81526001600160601b03198a1660048201526024810191909152600b60448201526a0d2c8bedad2e6dac2e8c6d60ab1b60648201526084015b60405180910390fd5b83801580610359575060ff81115b80610365575060408214155b156103b1576040805163118cef3b60e01b81526001600160601b03198b166004820152602481019190915260096044820152686261645f656e74727960b81b6064820152608401610342565b6001600160601b031989165f908152602081905260408120906103d2610933565b82549091506001600160a01b03166104415781546001600160a01b03199081166001600160a01b0383161783556001805480820182555f919091527fb10e2d527612073b26eecdfd717e6a320cf44b4afac2b0732d9fcbe2b7fa0cf601805490911660608d901c179055610470565b81546001600160a01b03828116911614610470578a60405163118cef3b60e01b81526004016103429190610eca565b81546001600160401b03600160a01b9091048116908716116104a7578a60405163118cef3b60e01b81526004016103429190610f06565b815460ff60e01b196001600160401b038816600160a01b021668ffffffffffffffffff60a01b1990911617600160e01b178255600182018a905560028201899055600382016104f7888a83610fdf565b5060048201610507858783610fdf565b50600280545f91908290610523906001600160401b03166110ad565b91906101000a8154816001600160401b0302191690836001600160401b0316021790559050816001600160a01b03168c6001600160601b0319167f129bbb0ea53def67ab75b9e1b39233863821648eeea7235f0f159a2de835a9628d8d8d8d8d8d8d8a60405161059a9897969594939291906110ff565b60405180910390a3505050505050505050505050565b6001600160601b031981165f9081526020819052604081208054600160e01b900460ff166105de575f6105ea565b80546001600160a01b03165b9392505050565b6001600160601b031982165f9081526020819052604090208054600160e01b900460ff16610663576040805163118cef3b60e01b81526001600160601b0319851660048201526024810191909152600c60448201526b6e6f5f737563685f6e6f646560a01b6064820152608401610342565b61066b610933565b81546001600160a01b0390811691161461069a578260405163118cef3b60e01b81526004016103429190610eca565b80546001600160401b03600160a01b9091048116908316116106d1578260405163118cef3b60e01b81526004016103429190610f06565b805468ffffffffffffffffff60a01b1916600160a01b6001600160401b038481169190910260ff60e01b1916919091178255600280545f92839161071591166110ad565b91906101000a8154816001600160401b0302191690836001600160401b0316021790559050836001600160601b0319167f5a3ecc98912a383fb3f49dc5cd71a1840065867a406e3cd13c88ab048c2ff46e848360405161078b9291906001600160401b0392831681529116602082015260400190565b60405180910390a250505050565b6107a1610b4c565b6001600160601b031982165f90815260208190526040902054600160e01b900460ff166107ed5760405163b88238eb60e01b81526001600160601b031983166004820152602401610342565b6107f6826109a0565b92915050565b606061010082111561080e5761010091505b5f610819838561115f565b60015490915081111561082b57506001545b80841061086b57604080515f8082526020820190925290610862565b61084f610b4c565b8152602001906001900390816108475790505b509150506107f6565b5f6108768583611172565b6001600160401b0381111561088d5761088d610f3c565b6040519080825280602002602001820160405280156108c657816020015b6108b3610b4c565b8152602001906001900390816108ab5790505b509050845b8281101561092a576108fc600182815481106108e9576108e9611185565b5f9182526020909120015460601b6109a0565b826109078884611172565b8151811061091757610917611185565b60209081029190910101526001016108cb565b50949350505050565b5f336001600160a01b037f00000000000000000000000000000000000000000000000000000000000000001614801561096d575060143610155b1561099b575f3661097f601482611172565b61098a928290611199565b610993916111c0565b60601c905090565b503390565b6109a8610b4c565b6001600160601b031982165f818152602081815260409182902082516101008101845293845280546001600160a01b03811692850192909252600160a01b82046001600160401b031692840192909252600160e01b900460ff161515606083015260018101546080830152600281015460a083015260038101805491929160c083019190610a3590610f50565b80601f0160208091040260200160405190810160405280929190818152602001828054610a6190610f50565b8015610aac5780601f10610a8357610100808354040283529160200191610aac565b820191905f5260205f20905b815481529060010190602001808311610a8f57829003601f168201915b50505050508152602001826004018054610ac590610f50565b80601f0160208091040260200160405190810160405280929190818152602001828054610af190610f50565b8015610b3c5780601f10610b1357610100808354040283529160200191610b3c565b820191905f5260205f20905b815481529060010190602001808311610b1f57829003601f168201915b5050505050815250915050919050565b6040518061010001604052805f6001600160601b03191681526020015f6001600160a01b031681526020015f6001600160401b031681526020015f151581526020015f81526020015f815260200160608152602001606081525090565b80356001600160601b031981168114610bc0575f5ffd5b919050565b5f5f83601f840112610bd5575f5ffd5b5081356001600160401b03811115610beb575f5ffd5b602083019150836020828501011115610c02575f5ffd5b9250929050565b80356001600160401b0381168114610bc0575f5ffd5b5f5f5f5f5f5f5f5f60c0898b031215610c36575f5ffd5b610c3f89610ba9565b9750602089013596506040890135955060608901356001600160401b03811115610c67575f5ffd5b610c738b828c01610bc5565b9096509450610c86905060808a01610c09565b925060a08901356001600160401b03811115610ca0575f5ffd5b610cac8b828c01610bc5565b999c989b5096995094979396929594505050565b5f60208284031215610cd0575f5ffd5b6105ea82610ba9565b5f60208284031215610ce9575f5ffd5b81356001600160a01b03811681146105ea575f5ffd5b5f5f60408385031215610d10575f5ffd5b610d1983610ba9565b9150610d2760208401610c09565b90509250929050565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b6001600160601b031981511682525f6020820151610d8760208501826001600160a01b03169052565b506040820151610da260408501826001600160401b03169052565b506060820151610db6606085018215159052565b506080820151608084015260a082015160a084015260c082015161010060c0850152610de6610100850182610d30565b905060e083015184820360e0860152610dff8282610d30565b95945050505050565b602081525f6105ea6020830184610d5e565b5f5f60408385031215610e2b575f5ffd5b50508035926020909101359150565b5f602082016020835280845180835260408501915060408160051b8601019250602086015f5b82811015610e9157603f19878603018452610e7c858351610d5e565b94506020938401939190910190600101610e60565b50929695505050505050565b5f82518060208501845e5f920191825250919050565b5f60208284031215610ec3575f5ffd5b5051919050565b6001600160601b0319919091168152604060208201819052600f908201526e1b9bdd17dd1a1957d858d8dbdd5b9d608a1b606082015260800190565b6001600160601b0319919091168152604060208201819052600990820152687374616c655f73657160b81b606082015260800190565b634e487b7160e01b5f52604160045260245ffd5b600181811c90821680610f6457607f821691505b602082108103610f8257634e487b7160e01b5f52602260045260245ffd5b50919050565b601f821115610fda5782821115610fda57805f5260205f20601f840160051c6020851015610fb357505f5b90810190601f840160051c035f5b81811015610fd6575f83820155600101610fc1565b5050505b505050565b6001600160401b03831115610ff657610ff6610f3c565b61100a836110048354610f50565b83610f88565b5f601f84116001811461103b575f85156110245750838201355b5f19600387901b1c1916600186901b178355611092565b5f83815260208120601f198716915b8281101561106a578685013582556020948501946001909201910161104a565b5086821015611086575f1960f88860031b161c19848701351681555b505060018560011b0183555b5050505050565b634e487b7160e01b5f52601160045260245ffd5b5f6001600160401b0382166001600160401b0381036110ce576110ce611099565b60010192915050565b81835281816020850137505f828201602090810191909152601f909101601f19169091010190565b88815287602082015260c060408201525f61111e60c08301888a6110d7565b6001600160401b038716606084015282810360808401526111408186886110d7565b9150506001600160401b03831660a08301529998505050505050505050565b808201808211156107f6576107f6611099565b818103818111156107f6576107f6611099565b634e487b7160e01b5f52603260045260245ffd5b5f5f858511156111a7575f5ffd5b838611156111b3575f5ffd5b5050820193919092039150565b80356001600160601b031981169060148410156111f7576001600160601b03196001600160601b03198560140360031b1b82161691505b509291505056fea2646970667358221220254c3f31a0dce48ffac18b6de1299397d3af10b4598f742b08076f2c4600329d64736f6c63430008250033",
}

// NodeRegistry is an auto generated Go binding around an Ethereum contract.
type NodeRegistry struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *NodeRegistry) GetABI() abi.ABI {
	return c.abi
}

// NewNodeRegistry creates a new instance of NodeRegistry.
func NewNodeRegistry() *NodeRegistry {
	parsed, err := NodeRegistryMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &NodeRegistry{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *NodeRegistry) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address router) returns()
func (nodeRegistry *NodeRegistry) PackConstructor(router common.Address) []byte {
	enc, err := nodeRegistry.abi.Pack("", router)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackMAXENDPOINT is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xba7df45e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_ENDPOINT() view returns(uint256)
func (nodeRegistry *NodeRegistry) PackMAXENDPOINT() []byte {
	enc, err := nodeRegistry.abi.Pack("MAX_ENDPOINT")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXENDPOINT is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xba7df45e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_ENDPOINT() view returns(uint256)
func (nodeRegistry *NodeRegistry) TryPackMAXENDPOINT() ([]byte, error) {
	return nodeRegistry.abi.Pack("MAX_ENDPOINT")
}

// UnpackMAXENDPOINT is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xba7df45e.
//
// Solidity: function MAX_ENDPOINT() view returns(uint256)
func (nodeRegistry *NodeRegistry) UnpackMAXENDPOINT(data []byte) (*big.Int, error) {
	out, err := nodeRegistry.abi.Unpack("MAX_ENDPOINT", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackMAXPAGE is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x69fc09b9.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_PAGE() view returns(uint256)
func (nodeRegistry *NodeRegistry) PackMAXPAGE() []byte {
	enc, err := nodeRegistry.abi.Pack("MAX_PAGE")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXPAGE is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x69fc09b9.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_PAGE() view returns(uint256)
func (nodeRegistry *NodeRegistry) TryPackMAXPAGE() ([]byte, error) {
	return nodeRegistry.abi.Pack("MAX_PAGE")
}

// UnpackMAXPAGE is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x69fc09b9.
//
// Solidity: function MAX_PAGE() view returns(uint256)
func (nodeRegistry *NodeRegistry) UnpackMAXPAGE(data []byte) (*big.Int, error) {
	out, err := nodeRegistry.abi.Unpack("MAX_PAGE", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackAccountOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9b36e561.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function accountOf(bytes20 id) view returns(address)
func (nodeRegistry *NodeRegistry) PackAccountOf(id [20]byte) []byte {
	enc, err := nodeRegistry.abi.Pack("accountOf", id)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAccountOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9b36e561.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function accountOf(bytes20 id) view returns(address)
func (nodeRegistry *NodeRegistry) TryPackAccountOf(id [20]byte) ([]byte, error) {
	return nodeRegistry.abi.Pack("accountOf", id)
}

// UnpackAccountOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x9b36e561.
//
// Solidity: function accountOf(bytes20 id) view returns(address)
func (nodeRegistry *NodeRegistry) UnpackAccountOf(data []byte) (common.Address, error) {
	out, err := nodeRegistry.abi.Unpack("accountOf", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06661abd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function count() view returns(uint256)
func (nodeRegistry *NodeRegistry) PackCount() []byte {
	enc, err := nodeRegistry.abi.Pack("count")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06661abd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function count() view returns(uint256)
func (nodeRegistry *NodeRegistry) TryPackCount() ([]byte, error) {
	return nodeRegistry.abi.Pack("count")
}

// UnpackCount is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x06661abd.
//
// Solidity: function count() view returns(uint256)
func (nodeRegistry *NodeRegistry) UnpackCount(data []byte) (*big.Int, error) {
	out, err := nodeRegistry.abi.Unpack("count", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackDeregister is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xaa14aa4f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function deregister(bytes20 id, uint64 seq) returns()
func (nodeRegistry *NodeRegistry) PackDeregister(id [20]byte, seq uint64) []byte {
	enc, err := nodeRegistry.abi.Pack("deregister", id, seq)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDeregister is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xaa14aa4f.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function deregister(bytes20 id, uint64 seq) returns()
func (nodeRegistry *NodeRegistry) TryPackDeregister(id [20]byte, seq uint64) ([]byte, error) {
	return nodeRegistry.abi.Pack("deregister", id, seq)
}

// PackIsTrustedForwarder is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x572b6c05.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isTrustedForwarder(address forwarder) view returns(bool)
func (nodeRegistry *NodeRegistry) PackIsTrustedForwarder(forwarder common.Address) []byte {
	enc, err := nodeRegistry.abi.Pack("isTrustedForwarder", forwarder)
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
func (nodeRegistry *NodeRegistry) TryPackIsTrustedForwarder(forwarder common.Address) ([]byte, error) {
	return nodeRegistry.abi.Pack("isTrustedForwarder", forwarder)
}

// UnpackIsTrustedForwarder is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x572b6c05.
//
// Solidity: function isTrustedForwarder(address forwarder) view returns(bool)
func (nodeRegistry *NodeRegistry) UnpackIsTrustedForwarder(data []byte) (bool, error) {
	out, err := nodeRegistry.abi.Unpack("isTrustedForwarder", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackNode is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xabb0c379.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function node(bytes20 id) view returns((bytes20,address,uint64,bool,bytes32,bytes32,string,bytes))
func (nodeRegistry *NodeRegistry) PackNode(id [20]byte) []byte {
	enc, err := nodeRegistry.abi.Pack("node", id)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackNode is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xabb0c379.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function node(bytes20 id) view returns((bytes20,address,uint64,bool,bytes32,bytes32,string,bytes))
func (nodeRegistry *NodeRegistry) TryPackNode(id [20]byte) ([]byte, error) {
	return nodeRegistry.abi.Pack("node", id)
}

// UnpackNode is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xabb0c379.
//
// Solidity: function node(bytes20 id) view returns((bytes20,address,uint64,bool,bytes32,bytes32,string,bytes))
func (nodeRegistry *NodeRegistry) UnpackNode(data []byte) (NodeRegistryNode, error) {
	out, err := nodeRegistry.abi.Unpack("node", data)
	if err != nil {
		return *new(NodeRegistryNode), err
	}
	out0 := *abi.ConvertType(out[0], new(NodeRegistryNode)).(*NodeRegistryNode)
	return out0, nil
}

// PackNodeSeq is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x17c6db6a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function nodeSeq(bytes20 id) view returns(uint64 seq, bool registered)
func (nodeRegistry *NodeRegistry) PackNodeSeq(id [20]byte) []byte {
	enc, err := nodeRegistry.abi.Pack("nodeSeq", id)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackNodeSeq is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x17c6db6a.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function nodeSeq(bytes20 id) view returns(uint64 seq, bool registered)
func (nodeRegistry *NodeRegistry) TryPackNodeSeq(id [20]byte) ([]byte, error) {
	return nodeRegistry.abi.Pack("nodeSeq", id)
}

// NodeSeqOutput serves as a container for the return parameters of contract
// method NodeSeq.
type NodeSeqOutput struct {
	Seq        uint64
	Registered bool
}

// UnpackNodeSeq is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x17c6db6a.
//
// Solidity: function nodeSeq(bytes20 id) view returns(uint64 seq, bool registered)
func (nodeRegistry *NodeRegistry) UnpackNodeSeq(data []byte) (NodeSeqOutput, error) {
	out, err := nodeRegistry.abi.Unpack("nodeSeq", data)
	outstruct := new(NodeSeqOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Seq = *abi.ConvertType(out[0], new(uint64)).(*uint64)
	outstruct.Registered = *abi.ConvertType(out[1], new(bool)).(*bool)
	return *outstruct, nil
}

// PackPage is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xebb9e69c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function page(uint256 start, uint256 limit) view returns((bytes20,address,uint64,bool,bytes32,bytes32,string,bytes)[])
func (nodeRegistry *NodeRegistry) PackPage(start *big.Int, limit *big.Int) []byte {
	enc, err := nodeRegistry.abi.Pack("page", start, limit)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPage is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xebb9e69c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function page(uint256 start, uint256 limit) view returns((bytes20,address,uint64,bool,bytes32,bytes32,string,bytes)[])
func (nodeRegistry *NodeRegistry) TryPackPage(start *big.Int, limit *big.Int) ([]byte, error) {
	return nodeRegistry.abi.Pack("page", start, limit)
}

// UnpackPage is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xebb9e69c.
//
// Solidity: function page(uint256 start, uint256 limit) view returns((bytes20,address,uint64,bool,bytes32,bytes32,string,bytes)[])
func (nodeRegistry *NodeRegistry) UnpackPage(data []byte) ([]NodeRegistryNode, error) {
	out, err := nodeRegistry.abi.Unpack("page", data)
	if err != nil {
		return *new([]NodeRegistryNode), err
	}
	out0 := *abi.ConvertType(out[0], new([]NodeRegistryNode)).(*[]NodeRegistryNode)
	return out0, nil
}

// PackRegister is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x079c0406.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function register(bytes20 id, bytes32 publicKey, bytes32 fingerprint, string endpoint, uint64 seq, bytes signature) returns()
func (nodeRegistry *NodeRegistry) PackRegister(id [20]byte, publicKey [32]byte, fingerprint [32]byte, endpoint string, seq uint64, signature []byte) []byte {
	enc, err := nodeRegistry.abi.Pack("register", id, publicKey, fingerprint, endpoint, seq, signature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRegister is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x079c0406.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function register(bytes20 id, bytes32 publicKey, bytes32 fingerprint, string endpoint, uint64 seq, bytes signature) returns()
func (nodeRegistry *NodeRegistry) TryPackRegister(id [20]byte, publicKey [32]byte, fingerprint [32]byte, endpoint string, seq uint64, signature []byte) ([]byte, error) {
	return nodeRegistry.abi.Pack("register", id, publicKey, fingerprint, endpoint, seq, signature)
}

// PackSequence is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x529d15cc.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function sequence() view returns(uint64)
func (nodeRegistry *NodeRegistry) PackSequence() []byte {
	enc, err := nodeRegistry.abi.Pack("sequence")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSequence is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x529d15cc.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function sequence() view returns(uint64)
func (nodeRegistry *NodeRegistry) TryPackSequence() ([]byte, error) {
	return nodeRegistry.abi.Pack("sequence")
}

// UnpackSequence is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x529d15cc.
//
// Solidity: function sequence() view returns(uint64)
func (nodeRegistry *NodeRegistry) UnpackSequence(data []byte) (uint64, error) {
	out, err := nodeRegistry.abi.Unpack("sequence", data)
	if err != nil {
		return *new(uint64), err
	}
	out0 := *abi.ConvertType(out[0], new(uint64)).(*uint64)
	return out0, nil
}

// PackTrustedRouter is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9acda3bb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function trustedRouter() view returns(address)
func (nodeRegistry *NodeRegistry) PackTrustedRouter() []byte {
	enc, err := nodeRegistry.abi.Pack("trustedRouter")
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
func (nodeRegistry *NodeRegistry) TryPackTrustedRouter() ([]byte, error) {
	return nodeRegistry.abi.Pack("trustedRouter")
}

// UnpackTrustedRouter is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x9acda3bb.
//
// Solidity: function trustedRouter() view returns(address)
func (nodeRegistry *NodeRegistry) UnpackTrustedRouter(data []byte) (common.Address, error) {
	out, err := nodeRegistry.abi.Unpack("trustedRouter", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// NodeRegistryNodeDeregistered represents a NodeDeregistered event raised by the NodeRegistry contract.
type NodeRegistryNodeDeregistered struct {
	Id       [20]byte
	Seq      uint64
	Sequence uint64
	Raw      *types.Log // Blockchain specific contextual infos
}

const NodeRegistryNodeDeregisteredEventName = "NodeDeregistered"

// ContractEventName returns the user-defined event name.
func (NodeRegistryNodeDeregistered) ContractEventName() string {
	return NodeRegistryNodeDeregisteredEventName
}

// UnpackNodeDeregisteredEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event NodeDeregistered(bytes20 indexed id, uint64 seq, uint64 sequence)
func (nodeRegistry *NodeRegistry) UnpackNodeDeregisteredEvent(log *types.Log) (*NodeRegistryNodeDeregistered, error) {
	event := "NodeDeregistered"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != nodeRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(NodeRegistryNodeDeregistered)
	if len(log.Data) > 0 {
		if err := nodeRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range nodeRegistry.abi.Events[event].Inputs {
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

// NodeRegistryNodeRegistered represents a NodeRegistered event raised by the NodeRegistry contract.
type NodeRegistryNodeRegistered struct {
	Id          [20]byte
	Account     common.Address
	PublicKey   [32]byte
	Fingerprint [32]byte
	Endpoint    string
	Seq         uint64
	Signature   []byte
	Sequence    uint64
	Raw         *types.Log // Blockchain specific contextual infos
}

const NodeRegistryNodeRegisteredEventName = "NodeRegistered"

// ContractEventName returns the user-defined event name.
func (NodeRegistryNodeRegistered) ContractEventName() string {
	return NodeRegistryNodeRegisteredEventName
}

// UnpackNodeRegisteredEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event NodeRegistered(bytes20 indexed id, address indexed account, bytes32 publicKey, bytes32 fingerprint, string endpoint, uint64 seq, bytes signature, uint64 sequence)
func (nodeRegistry *NodeRegistry) UnpackNodeRegisteredEvent(log *types.Log) (*NodeRegistryNodeRegistered, error) {
	event := "NodeRegistered"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != nodeRegistry.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(NodeRegistryNodeRegistered)
	if len(log.Data) > 0 {
		if err := nodeRegistry.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range nodeRegistry.abi.Events[event].Inputs {
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
func (nodeRegistry *NodeRegistry) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], nodeRegistry.abi.Errors["NotFound"].ID.Bytes()[:4]) {
		return nodeRegistry.UnpackNotFoundError(raw[4:])
	}
	if bytes.Equal(raw[:4], nodeRegistry.abi.Errors["Refused"].ID.Bytes()[:4]) {
		return nodeRegistry.UnpackRefusedError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// NodeRegistryNotFound represents a NotFound error raised by the NodeRegistry contract.
type NodeRegistryNotFound struct {
	Id [20]byte
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotFound(bytes20 id)
func NodeRegistryNotFoundErrorID() common.Hash {
	return common.HexToHash("0xb88238eb8f7aa6aa54482d54e63017da4859e8ce937d010746922ba4aba2c642")
}

// UnpackNotFoundError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotFound(bytes20 id)
func (nodeRegistry *NodeRegistry) UnpackNotFoundError(raw []byte) (*NodeRegistryNotFound, error) {
	out := new(NodeRegistryNotFound)
	if err := nodeRegistry.abi.UnpackIntoInterface(out, "NotFound", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// NodeRegistryRefused represents a Refused error raised by the NodeRegistry contract.
type NodeRegistryRefused struct {
	Id     [20]byte
	Reason string
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error Refused(bytes20 id, string reason)
func NodeRegistryRefusedErrorID() common.Hash {
	return common.HexToHash("0x118cef3b6a843108bf61311ed1a356a6fd3d8369d8608f30d7c83889c2a4e6e5")
}

// UnpackRefusedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error Refused(bytes20 id, string reason)
func (nodeRegistry *NodeRegistry) UnpackRefusedError(raw []byte) (*NodeRegistryRefused, error) {
	out := new(NodeRegistryRefused)
	if err := nodeRegistry.abi.UnpackIntoInterface(out, "Refused", raw); err != nil {
		return nil, err
	}
	return out, nil
}
