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

// WorkflowWalk is an auto generated low-level Go binding around an user-defined struct.
type WorkflowWalk struct {
	Walk         string
	Tool         string
	Input        string
	Requester    common.Address
	Height       uint64
	Reported     bool
	Ok           bool
	Output       string
	Reason       string
	Leader       common.Address
	ResultHeight uint64
}

// WorkflowMetaData contains all meta data concerning the Workflow contract.
var WorkflowMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"router\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"walk\",\"type\":\"string\"}],\"name\":\"NotFound\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"leader\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"caps\",\"type\":\"uint256\"}],\"name\":\"LeaderCapGranted\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"address\",\"name\":\"leader\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"caps\",\"type\":\"uint256\"}],\"name\":\"LeaderCapRevoked\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"string\",\"name\":\"walk\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"tool\",\"type\":\"string\"}],\"name\":\"RequestWalkExecution\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"string\",\"name\":\"walk\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"bool\",\"name\":\"ok\",\"type\":\"bool\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"leader\",\"type\":\"address\"}],\"name\":\"WalkResult\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"MAX_LEADER_CAPS\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MAX_WALK_ID\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MAX_WALK_PAYLOAD\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"admin\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"leader\",\"type\":\"address\"}],\"name\":\"caps\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"leader\",\"type\":\"address\"}],\"name\":\"grantLeaderCap\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"forwarder\",\"type\":\"address\"}],\"name\":\"isTrustedForwarder\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"_walk\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"tool\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"input\",\"type\":\"string\"}],\"name\":\"request\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"leader\",\"type\":\"address\"}],\"name\":\"revokeLeaderCap\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"_walk\",\"type\":\"string\"},{\"internalType\":\"bool\",\"name\":\"ok\",\"type\":\"bool\"},{\"internalType\":\"string\",\"name\":\"output\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"_error\",\"type\":\"string\"}],\"name\":\"submitResult\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"trustedRouter\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"_walk\",\"type\":\"string\"}],\"name\":\"walk\",\"outputs\":[{\"components\":[{\"internalType\":\"string\",\"name\":\"walk\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"tool\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"input\",\"type\":\"string\"},{\"internalType\":\"address\",\"name\":\"requester\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"height\",\"type\":\"uint64\"},{\"internalType\":\"bool\",\"name\":\"reported\",\"type\":\"bool\"},{\"internalType\":\"bool\",\"name\":\"ok\",\"type\":\"bool\"},{\"internalType\":\"string\",\"name\":\"output\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"reason\",\"type\":\"string\"},{\"internalType\":\"address\",\"name\":\"leader\",\"type\":\"address\"},{\"internalType\":\"uint64\",\"name\":\"resultHeight\",\"type\":\"uint64\"}],\"internalType\":\"structWorkflow.Walk\",\"name\":\"\",\"type\":\"tuple\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "Workflow",
	Bin: "0x60a060405234801561000f575f5ffd5b5060405161172638038061172683398101604081905261002e91610050565b6001600160a01b03166080525f80546001600160a01b0319163317905561007d565b5f60208284031215610060575f5ffd5b81516001600160a01b0381168114610076575f5ffd5b9392505050565b6080516116836100a35f395f81816101090152818161019f0152610fb001526116835ff3fe608060405234801561000f575f5ffd5b50600436106100b1575f3560e01c806395d6685a1161006e57806395d6685a1461017a5780639acda3bb1461019a578063a16020f3146101d9578063a9c4748a146101e1578063d61afb03146101f4578063f851a44014610207575f5ffd5b806323e97e7c146100b557806333f6cfb2146100d1578063548f747b146100e6578063572b6c05146100f957806366d97b21146101495780638dc7cc3014610171575b5f5ffd5b6100be61400081565b6040519081526020015b60405180910390f35b6100e46100df366004611055565b610219565b005b6100e46100f43660046110f1565b610444565b6101396101073660046110f1565b7f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0390811691161490565b60405190151581526020016100c8565b6100be6101573660046110f1565b6001600160a01b03165f9081526001602052604090205490565b6100be61010081565b61018d61018836600461111e565b610555565b6040516100c8919061118a565b6101c17f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b0390911681526020016100c8565b6100be608081565b6100e46101ef3660046112ab565b610992565b6100e46102023660046110f1565b610d17565b5f546101c1906001600160a01b031681565b6102238686610e21565b61022d8484610e96565b61029c5760405162461bcd60e51b815260206004820152603560248201527f776f726b666c6f773a20746f6f6c206d75737420626520312d36342063686172604482015274616374657273206f66205b612d7a302d395f2e2d5d60581b60648201526084015b60405180910390fd5b8015806102aa575061400081115b1561031d5760405162461bcd60e51b815260206004820152603c60248201527f776f726b666c6f773a20696e7075742069732072657175697265643a20616e7960448201527f204a534f4e206f66206174206d6f7374203136333834206279746573000000006064820152608401610293565b5f60025f888860405161033192919061135d565b604051809103902081526020019081526020015f209050805f0180546103569061136c565b1590506103935760405162461bcd60e51b815260206004820152600b60248201526a77616c6b5f65786973747360a81b6044820152606401610293565b8061039f87898361140f565b50600181016103af85878361140f565b50600281016103bf83858361140f565b506103c8610fa4565b6003820180546001600160a01b03929092166001600160e01b031990921691909117600160a01b436001600160401b0316021790556040517fbbfa81b793a559a55a59a6e037a05935e81984433c519369376c0e250c99acde906104339089908990899089906114f1565b60405180910390a150505050505050565b5f546001600160a01b0316610457610fa4565b6001600160a01b0316146104995760405162461bcd60e51b81526020600482015260096024820152683737ba2fb0b236b4b760b91b6044820152606401610293565b6001600160a01b0381165f90815260016020526040812054908190036104f15760405162461bcd60e51b815260206004820152600d60248201526c06e6f5f6c65616465725f63617609c1b6044820152606401610293565b6104fa81611536565b6001600160a01b0383165f81815260016020908152604091829020849055815192835282018390529192507f7aef3b413e5877c9c11bdf7ce35228dbc9829f97e7926bbed0c1aeed9e80348191015b60405180910390a15050565b6105d46040518061016001604052806060815260200160608152602001606081526020015f6001600160a01b031681526020015f6001600160401b031681526020015f151581526020015f1515815260200160608152602001606081526020015f6001600160a01b031681526020015f6001600160401b031681525090565b5f60025f85856040516105e892919061135d565b604051809103902081526020019081526020015f209050805f01805461060d9061136c565b90505f0361063257838360405163181ef97760e21b815260040161029392919061154b565b80604051806101600160405290815f8201805461064e9061136c565b80601f016020809104026020016040519081016040528092919081815260200182805461067a9061136c565b80156106c55780601f1061069c576101008083540402835291602001916106c5565b820191905f5260205f20905b8154815290600101906020018083116106a857829003601f168201915b505050505081526020016001820180546106de9061136c565b80601f016020809104026020016040519081016040528092919081815260200182805461070a9061136c565b80156107555780601f1061072c57610100808354040283529160200191610755565b820191905f5260205f20905b81548152906001019060200180831161073857829003601f168201915b5050505050815260200160028201805461076e9061136c565b80601f016020809104026020016040519081016040528092919081815260200182805461079a9061136c565b80156107e55780601f106107bc576101008083540402835291602001916107e5565b820191905f5260205f20905b8154815290600101906020018083116107c857829003601f168201915b505050918352505060038201546001600160a01b03811660208301526001600160401b03600160a01b820416604083015260ff600160e01b8204811615156060840152600160e81b909104161515608082015260048201805460a09092019161084d9061136c565b80601f01602080910402602001604051908101604052809291908181526020018280546108799061136c565b80156108c45780601f1061089b576101008083540402835291602001916108c4565b820191905f5260205f20905b8154815290600101906020018083116108a757829003601f168201915b505050505081526020016005820180546108dd9061136c565b80601f01602080910402602001604051908101604052809291908181526020018280546109099061136c565b80156109545780601f1061092b57610100808354040283529160200191610954565b820191905f5260205f20905b81548152906001019060200180831161093757829003601f168201915b5050509183525050600691909101546001600160a01b0381166020830152600160a01b90046001600160401b03166040909101529150505b92915050565b61099c8787610e21565b846109b257821515806109ad575080155b6109be565b8215806109be57508015155b15610a445760405162461bcd60e51b815260206004820152604a60248201527f776f726b666c6f773a206120726573756c74206973207b77616c6b2c206f6b3a60448201527f20747275652c206f75747075747d206f72207b77616c6b2c206f6b3a2066616c60648201526973652c206572726f727d60b01b608482015260a401610293565b614000831115610abc5760405162461bcd60e51b815260206004820152603860248201527f776f726b666c6f773a206f7574707574206d75737420626520616e79204a534f60448201527f4e206f66206174206d6f737420313633383420627974657300000000000000006064820152608401610293565b614000811115610b285760405162461bcd60e51b815260206004820152603160248201527f776f726b666c6f773a206572726f72206d757374206265206120737472696e67604482015270206f6620312d313633383420627974657360781b6064820152608401610293565b5f610b31610fa4565b6001600160a01b0381165f9081526001602052604081205491925003610b865760405162461bcd60e51b815260206004820152600a6024820152693737ba2fb632b0b232b960b11b6044820152606401610293565b5f60025f8a8a604051610b9a92919061135d565b604051809103902081526020019081526020015f209050805f018054610bbf9061136c565b90505f03610bfe5760405162461bcd60e51b815260206004820152600c60248201526b6e6f5f737563685f77616c6b60a01b6044820152606401610293565b6003810154600160e01b900460ff1615610c4d5760405162461bcd60e51b815260206004820152601060248201526f185b1c9958591e57dc995c1bdc9d195960821b6044820152606401610293565b60038101805488158015600160e81b0261ffff60e01b1990921691909117600160e01b17909155610c8d5760048101610c8786888361140f565b50610c9e565b60058101610c9c84868361140f565b505b6006810180546001600160401b034316600160a01b026001600160e01b03199091166001600160a01b038516171790556040517f31f2fc556348e583f37f35dc2e3b3e9c2e333d48f82998ca040274d7c70f31d990610d04908b908b908b908790611566565b60405180910390a1505050505050505050565b5f546001600160a01b0316610d2a610fa4565b6001600160a01b031614610d6c5760405162461bcd60e51b81526020600482015260096024820152683737ba2fb0b236b4b760b91b6044820152606401610293565b6001600160a01b0381165f908152600160205260409020546101008110610dc55760405162461bcd60e51b815260206004820152600d60248201526c746f6f5f6d616e795f6361707360981b6044820152606401610293565b610dce8161159a565b6001600160a01b0383165f81815260016020908152604091829020849055815192835282018390529192507f87e32504be01f2615c188698ae2251b28d69275d7d80b2aedf1f48b023be57079101610549565b801580610e2e5750608081115b15610e925760405162461bcd60e51b815260206004820152602e60248201527f776f726b666c6f773a2077616c6b206d757374206265206120737472696e672060448201526d6f6620312d31323820627974657360901b6064820152608401610293565b5050565b5f8282801580610ea65750604081115b15610eb5575f9250505061098c565b5f5b81811015610f98575f838383818110610ed257610ed26115b2565b909101356001600160f81b031916915050606160f81b8110801590610f055750603d60f91b6001600160f81b0319821611155b80610f375750600360fc1b6001600160f81b0319821610801590610f375750603960f81b6001600160f81b0319821611155b80610f4f5750605f60f81b6001600160f81b03198216145b80610f675750602d60f81b6001600160f81b03198216145b80610f7f5750601760f91b6001600160f81b03198216145b610f8f575f94505050505061098c565b50600101610eb7565b50600195945050505050565b5f336001600160a01b037f000000000000000000000000000000000000000000000000000000000000000016148015610fde575060143610155b1561100c575f36610ff06014826115c6565b610ffb9282906115d9565b61100491611600565b60601c905090565b503390565b5f5f83601f840112611021575f5ffd5b5081356001600160401b03811115611037575f5ffd5b60208301915083602082850101111561104e575f5ffd5b9250929050565b5f5f5f5f5f5f6060878903121561106a575f5ffd5b86356001600160401b0381111561107f575f5ffd5b61108b89828a01611011565b90975095505060208701356001600160401b038111156110a9575f5ffd5b6110b589828a01611011565b90955093505060408701356001600160401b038111156110d3575f5ffd5b6110df89828a01611011565b979a9699509497509295939492505050565b5f60208284031215611101575f5ffd5b81356001600160a01b0381168114611117575f5ffd5b9392505050565b5f5f6020838503121561112f575f5ffd5b82356001600160401b03811115611144575f5ffd5b61115085828601611011565b90969095509350505050565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b602081525f825161016060208401526111a761018084018261115c565b90506020840151601f198483030160408501526111c4828261115c565b9150506040840151601f198483030160608501526111e2828261115c565b91505060608401516111ff60808501826001600160a01b03169052565b5060808401516001600160401b03811660a08501525060a084015180151560c08501525060c084015180151560e08501525060e0840151838203601f190161010085015261124d828261115c565b915050610100840151601f198483030161012085015261126d828261115c565b91505061012084015161128c6101408501826001600160a01b03169052565b506101408401516001600160401b038116610160850152509392505050565b5f5f5f5f5f5f5f6080888a0312156112c1575f5ffd5b87356001600160401b038111156112d6575f5ffd5b6112e28a828b01611011565b909850965050602088013580151581146112fa575f5ffd5b945060408801356001600160401b03811115611314575f5ffd5b6113208a828b01611011565b90955093505060608801356001600160401b0381111561133e575f5ffd5b61134a8a828b01611011565b989b979a50959850939692959293505050565b818382375f9101908152919050565b600181811c9082168061138057607f821691505b60208210810361139e57634e487b7160e01b5f52602260045260245ffd5b50919050565b634e487b7160e01b5f52604160045260245ffd5b601f82111561140a578282111561140a57805f5260205f20601f840160051c60208510156113e357505f5b90810190601f840160051c035f5b81811015611406575f838201556001016113f1565b5050505b505050565b6001600160401b03831115611426576114266113a4565b61143a83611434835461136c565b836113b8565b5f601f84116001811461146b575f85156114545750838201355b5f19600387901b1c1916600186901b1783556114c2565b5f83815260208120601f198716915b8281101561149a578685013582556020948501946001909201910161147a565b50868210156114b6575f1960f88860031b161c19848701351681555b505060018560011b0183555b5050505050565b81835281816020850137505f828201602090810191909152601f909101601f19169091010190565b604081525f6115046040830186886114c9565b82810360208401526115178185876114c9565b979650505050505050565b634e487b7160e01b5f52601160045260245ffd5b5f8161154457611544611522565b505f190190565b602081525f61155e6020830184866114c9565b949350505050565b606081525f6115796060830186886114c9565b9315156020830152506001600160a01b039190911660409091015292915050565b5f600182016115ab576115ab611522565b5060010190565b634e487b7160e01b5f52603260045260245ffd5b8181038181111561098c5761098c611522565b5f5f858511156115e7575f5ffd5b838611156115f3575f5ffd5b5050820193919092039150565b80356bffffffffffffffffffffffff198116906014841015611646576bffffffffffffffffffffffff196bffffffffffffffffffffffff198560140360031b1b82161691505b509291505056fea2646970667358221220ac1f329a1615fbef571578861604ce5df88f950a2cf2405be5fc2f02850c4e3664736f6c63430008250033",
}

// Workflow is an auto generated Go binding around an Ethereum contract.
type Workflow struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *Workflow) GetABI() abi.ABI {
	return c.abi
}

// NewWorkflow creates a new instance of Workflow.
func NewWorkflow() *Workflow {
	parsed, err := WorkflowMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &Workflow{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *Workflow) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address router) returns()
func (workflow *Workflow) PackConstructor(router common.Address) []byte {
	enc, err := workflow.abi.Pack("", router)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackMAXLEADERCAPS is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8dc7cc30.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_LEADER_CAPS() view returns(uint256)
func (workflow *Workflow) PackMAXLEADERCAPS() []byte {
	enc, err := workflow.abi.Pack("MAX_LEADER_CAPS")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXLEADERCAPS is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8dc7cc30.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_LEADER_CAPS() view returns(uint256)
func (workflow *Workflow) TryPackMAXLEADERCAPS() ([]byte, error) {
	return workflow.abi.Pack("MAX_LEADER_CAPS")
}

// UnpackMAXLEADERCAPS is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x8dc7cc30.
//
// Solidity: function MAX_LEADER_CAPS() view returns(uint256)
func (workflow *Workflow) UnpackMAXLEADERCAPS(data []byte) (*big.Int, error) {
	out, err := workflow.abi.Unpack("MAX_LEADER_CAPS", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackMAXWALKID is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa16020f3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_WALK_ID() view returns(uint256)
func (workflow *Workflow) PackMAXWALKID() []byte {
	enc, err := workflow.abi.Pack("MAX_WALK_ID")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXWALKID is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa16020f3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_WALK_ID() view returns(uint256)
func (workflow *Workflow) TryPackMAXWALKID() ([]byte, error) {
	return workflow.abi.Pack("MAX_WALK_ID")
}

// UnpackMAXWALKID is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa16020f3.
//
// Solidity: function MAX_WALK_ID() view returns(uint256)
func (workflow *Workflow) UnpackMAXWALKID(data []byte) (*big.Int, error) {
	out, err := workflow.abi.Unpack("MAX_WALK_ID", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackMAXWALKPAYLOAD is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23e97e7c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_WALK_PAYLOAD() view returns(uint256)
func (workflow *Workflow) PackMAXWALKPAYLOAD() []byte {
	enc, err := workflow.abi.Pack("MAX_WALK_PAYLOAD")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXWALKPAYLOAD is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23e97e7c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_WALK_PAYLOAD() view returns(uint256)
func (workflow *Workflow) TryPackMAXWALKPAYLOAD() ([]byte, error) {
	return workflow.abi.Pack("MAX_WALK_PAYLOAD")
}

// UnpackMAXWALKPAYLOAD is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x23e97e7c.
//
// Solidity: function MAX_WALK_PAYLOAD() view returns(uint256)
func (workflow *Workflow) UnpackMAXWALKPAYLOAD(data []byte) (*big.Int, error) {
	out, err := workflow.abi.Unpack("MAX_WALK_PAYLOAD", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackAdmin is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf851a440.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function admin() view returns(address)
func (workflow *Workflow) PackAdmin() []byte {
	enc, err := workflow.abi.Pack("admin")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAdmin is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf851a440.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function admin() view returns(address)
func (workflow *Workflow) TryPackAdmin() ([]byte, error) {
	return workflow.abi.Pack("admin")
}

// UnpackAdmin is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xf851a440.
//
// Solidity: function admin() view returns(address)
func (workflow *Workflow) UnpackAdmin(data []byte) (common.Address, error) {
	out, err := workflow.abi.Unpack("admin", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackCaps is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x66d97b21.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function caps(address leader) view returns(uint256)
func (workflow *Workflow) PackCaps(leader common.Address) []byte {
	enc, err := workflow.abi.Pack("caps", leader)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCaps is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x66d97b21.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function caps(address leader) view returns(uint256)
func (workflow *Workflow) TryPackCaps(leader common.Address) ([]byte, error) {
	return workflow.abi.Pack("caps", leader)
}

// UnpackCaps is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x66d97b21.
//
// Solidity: function caps(address leader) view returns(uint256)
func (workflow *Workflow) UnpackCaps(data []byte) (*big.Int, error) {
	out, err := workflow.abi.Unpack("caps", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackGrantLeaderCap is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd61afb03.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function grantLeaderCap(address leader) returns()
func (workflow *Workflow) PackGrantLeaderCap(leader common.Address) []byte {
	enc, err := workflow.abi.Pack("grantLeaderCap", leader)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGrantLeaderCap is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd61afb03.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function grantLeaderCap(address leader) returns()
func (workflow *Workflow) TryPackGrantLeaderCap(leader common.Address) ([]byte, error) {
	return workflow.abi.Pack("grantLeaderCap", leader)
}

// PackIsTrustedForwarder is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x572b6c05.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isTrustedForwarder(address forwarder) view returns(bool)
func (workflow *Workflow) PackIsTrustedForwarder(forwarder common.Address) []byte {
	enc, err := workflow.abi.Pack("isTrustedForwarder", forwarder)
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
func (workflow *Workflow) TryPackIsTrustedForwarder(forwarder common.Address) ([]byte, error) {
	return workflow.abi.Pack("isTrustedForwarder", forwarder)
}

// UnpackIsTrustedForwarder is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x572b6c05.
//
// Solidity: function isTrustedForwarder(address forwarder) view returns(bool)
func (workflow *Workflow) UnpackIsTrustedForwarder(data []byte) (bool, error) {
	out, err := workflow.abi.Unpack("isTrustedForwarder", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackRequest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x33f6cfb2.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function request(string _walk, string tool, string input) returns()
func (workflow *Workflow) PackRequest(walk string, tool string, input string) []byte {
	enc, err := workflow.abi.Pack("request", walk, tool, input)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRequest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x33f6cfb2.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function request(string _walk, string tool, string input) returns()
func (workflow *Workflow) TryPackRequest(walk string, tool string, input string) ([]byte, error) {
	return workflow.abi.Pack("request", walk, tool, input)
}

// PackRevokeLeaderCap is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x548f747b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function revokeLeaderCap(address leader) returns()
func (workflow *Workflow) PackRevokeLeaderCap(leader common.Address) []byte {
	enc, err := workflow.abi.Pack("revokeLeaderCap", leader)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRevokeLeaderCap is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x548f747b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function revokeLeaderCap(address leader) returns()
func (workflow *Workflow) TryPackRevokeLeaderCap(leader common.Address) ([]byte, error) {
	return workflow.abi.Pack("revokeLeaderCap", leader)
}

// PackSubmitResult is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa9c4748a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function submitResult(string _walk, bool ok, string output, string _error) returns()
func (workflow *Workflow) PackSubmitResult(walk string, ok bool, output string, error string) []byte {
	enc, err := workflow.abi.Pack("submitResult", walk, ok, output, error)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSubmitResult is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa9c4748a.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function submitResult(string _walk, bool ok, string output, string _error) returns()
func (workflow *Workflow) TryPackSubmitResult(walk string, ok bool, output string, error string) ([]byte, error) {
	return workflow.abi.Pack("submitResult", walk, ok, output, error)
}

// PackTrustedRouter is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9acda3bb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function trustedRouter() view returns(address)
func (workflow *Workflow) PackTrustedRouter() []byte {
	enc, err := workflow.abi.Pack("trustedRouter")
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
func (workflow *Workflow) TryPackTrustedRouter() ([]byte, error) {
	return workflow.abi.Pack("trustedRouter")
}

// UnpackTrustedRouter is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x9acda3bb.
//
// Solidity: function trustedRouter() view returns(address)
func (workflow *Workflow) UnpackTrustedRouter(data []byte) (common.Address, error) {
	out, err := workflow.abi.Unpack("trustedRouter", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackWalk is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d6685a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function walk(string _walk) view returns((string,string,string,address,uint64,bool,bool,string,string,address,uint64))
func (workflow *Workflow) PackWalk(walk string) []byte {
	enc, err := workflow.abi.Pack("walk", walk)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackWalk is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d6685a.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function walk(string _walk) view returns((string,string,string,address,uint64,bool,bool,string,string,address,uint64))
func (workflow *Workflow) TryPackWalk(walk string) ([]byte, error) {
	return workflow.abi.Pack("walk", walk)
}

// UnpackWalk is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x95d6685a.
//
// Solidity: function walk(string _walk) view returns((string,string,string,address,uint64,bool,bool,string,string,address,uint64))
func (workflow *Workflow) UnpackWalk(data []byte) (WorkflowWalk, error) {
	out, err := workflow.abi.Unpack("walk", data)
	if err != nil {
		return *new(WorkflowWalk), err
	}
	out0 := *abi.ConvertType(out[0], new(WorkflowWalk)).(*WorkflowWalk)
	return out0, nil
}

// WorkflowLeaderCapGranted represents a LeaderCapGranted event raised by the Workflow contract.
type WorkflowLeaderCapGranted struct {
	Leader common.Address
	Caps   *big.Int
	Raw    *types.Log // Blockchain specific contextual infos
}

const WorkflowLeaderCapGrantedEventName = "LeaderCapGranted"

// ContractEventName returns the user-defined event name.
func (WorkflowLeaderCapGranted) ContractEventName() string {
	return WorkflowLeaderCapGrantedEventName
}

// UnpackLeaderCapGrantedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event LeaderCapGranted(address leader, uint256 caps)
func (workflow *Workflow) UnpackLeaderCapGrantedEvent(log *types.Log) (*WorkflowLeaderCapGranted, error) {
	event := "LeaderCapGranted"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != workflow.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(WorkflowLeaderCapGranted)
	if len(log.Data) > 0 {
		if err := workflow.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range workflow.abi.Events[event].Inputs {
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

// WorkflowLeaderCapRevoked represents a LeaderCapRevoked event raised by the Workflow contract.
type WorkflowLeaderCapRevoked struct {
	Leader common.Address
	Caps   *big.Int
	Raw    *types.Log // Blockchain specific contextual infos
}

const WorkflowLeaderCapRevokedEventName = "LeaderCapRevoked"

// ContractEventName returns the user-defined event name.
func (WorkflowLeaderCapRevoked) ContractEventName() string {
	return WorkflowLeaderCapRevokedEventName
}

// UnpackLeaderCapRevokedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event LeaderCapRevoked(address leader, uint256 caps)
func (workflow *Workflow) UnpackLeaderCapRevokedEvent(log *types.Log) (*WorkflowLeaderCapRevoked, error) {
	event := "LeaderCapRevoked"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != workflow.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(WorkflowLeaderCapRevoked)
	if len(log.Data) > 0 {
		if err := workflow.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range workflow.abi.Events[event].Inputs {
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

// WorkflowRequestWalkExecution represents a RequestWalkExecution event raised by the Workflow contract.
type WorkflowRequestWalkExecution struct {
	Walk string
	Tool string
	Raw  *types.Log // Blockchain specific contextual infos
}

const WorkflowRequestWalkExecutionEventName = "RequestWalkExecution"

// ContractEventName returns the user-defined event name.
func (WorkflowRequestWalkExecution) ContractEventName() string {
	return WorkflowRequestWalkExecutionEventName
}

// UnpackRequestWalkExecutionEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event RequestWalkExecution(string walk, string tool)
func (workflow *Workflow) UnpackRequestWalkExecutionEvent(log *types.Log) (*WorkflowRequestWalkExecution, error) {
	event := "RequestWalkExecution"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != workflow.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(WorkflowRequestWalkExecution)
	if len(log.Data) > 0 {
		if err := workflow.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range workflow.abi.Events[event].Inputs {
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

// WorkflowWalkResult represents a WalkResult event raised by the Workflow contract.
type WorkflowWalkResult struct {
	Walk   string
	Ok     bool
	Leader common.Address
	Raw    *types.Log // Blockchain specific contextual infos
}

const WorkflowWalkResultEventName = "WalkResult"

// ContractEventName returns the user-defined event name.
func (WorkflowWalkResult) ContractEventName() string {
	return WorkflowWalkResultEventName
}

// UnpackWalkResultEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event WalkResult(string walk, bool ok, address leader)
func (workflow *Workflow) UnpackWalkResultEvent(log *types.Log) (*WorkflowWalkResult, error) {
	event := "WalkResult"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != workflow.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(WorkflowWalkResult)
	if len(log.Data) > 0 {
		if err := workflow.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range workflow.abi.Events[event].Inputs {
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
func (workflow *Workflow) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], workflow.abi.Errors["NotFound"].ID.Bytes()[:4]) {
		return workflow.UnpackNotFoundError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// WorkflowNotFound represents a NotFound error raised by the Workflow contract.
type WorkflowNotFound struct {
	Walk string
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotFound(string walk)
func WorkflowNotFoundErrorID() common.Hash {
	return common.HexToHash("0x607be5dc64b1cc48d786f50883cd9879650017ea06baaa551546973e3f10503f")
}

// UnpackNotFoundError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotFound(string walk)
func (workflow *Workflow) UnpackNotFoundError(raw []byte) (*WorkflowNotFound, error) {
	out := new(WorkflowNotFound)
	if err := workflow.abi.UnpackIntoInterface(out, "NotFound", raw); err != nil {
		return nil, err
	}
	return out, nil
}
