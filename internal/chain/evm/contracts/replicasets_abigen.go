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

// ReplicaSetsReplicaSet is an auto generated low-level Go binding around an user-defined struct.
type ReplicaSetsReplicaSet struct {
	Queue       string
	Primary     [20]byte
	Secondaries [][20]byte
	Version     uint64
	UpdatedBy   [20]byte
	Height      uint64
}

// ReplicaSetsUpdate is an auto generated low-level Go binding around an user-defined struct.
type ReplicaSetsUpdate struct {
	Queue       string
	Primary     [20]byte
	Secondaries [][20]byte
	Replaces    uint64
	Signer      [20]byte
}

// ReplicaSetsMetaData contains all meta data concerning the ReplicaSets contract.
var ReplicaSetsMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"router\",\"type\":\"address\"},{\"internalType\":\"contractNodeRegistry\",\"name\":\"nodes\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"queue\",\"type\":\"string\"}],\"name\":\"NotFound\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"queue\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"reason\",\"type\":\"string\"}],\"name\":\"Refused\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"string\",\"name\":\"queue\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"replaces\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"bytes20\",\"name\":\"signer\",\"type\":\"bytes20\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"reason\",\"type\":\"string\"}],\"name\":\"ReplicaSetRefused\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"string\",\"name\":\"queue\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"bytes20\",\"name\":\"primary\",\"type\":\"bytes20\"},{\"indexed\":false,\"internalType\":\"bytes20[]\",\"name\":\"secondaries\",\"type\":\"bytes20[]\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"version\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"bytes20\",\"name\":\"updatedBy\",\"type\":\"bytes20\"}],\"name\":\"ReplicaSetUpdated\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"MAX_BATCH\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MAX_PAGE\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MAX_QUEUE\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MAX_SECONDARIES\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"count\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"forwarder\",\"type\":\"address\"}],\"name\":\"isTrustedForwarder\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"registry\",\"outputs\":[{\"internalType\":\"contractNodeRegistry\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"queue\",\"type\":\"string\"}],\"name\":\"set\",\"outputs\":[{\"components\":[{\"internalType\":\"string\",\"name\":\"queue\",\"type\":\"string\"},{\"internalType\":\"bytes20\",\"name\":\"primary\",\"type\":\"bytes20\"},{\"internalType\":\"bytes20[]\",\"name\":\"secondaries\",\"type\":\"bytes20[]\"},{\"internalType\":\"uint64\",\"name\":\"version\",\"type\":\"uint64\"},{\"internalType\":\"bytes20\",\"name\":\"updatedBy\",\"type\":\"bytes20\"},{\"internalType\":\"uint64\",\"name\":\"height\",\"type\":\"uint64\"}],\"internalType\":\"structReplicaSets.ReplicaSet\",\"name\":\"\",\"type\":\"tuple\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"after_\",\"type\":\"string\"},{\"internalType\":\"uint256\",\"name\":\"limit\",\"type\":\"uint256\"}],\"name\":\"sets\",\"outputs\":[{\"components\":[{\"internalType\":\"string\",\"name\":\"queue\",\"type\":\"string\"},{\"internalType\":\"bytes20\",\"name\":\"primary\",\"type\":\"bytes20\"},{\"internalType\":\"bytes20[]\",\"name\":\"secondaries\",\"type\":\"bytes20[]\"},{\"internalType\":\"uint64\",\"name\":\"version\",\"type\":\"uint64\"},{\"internalType\":\"bytes20\",\"name\":\"updatedBy\",\"type\":\"bytes20\"},{\"internalType\":\"uint64\",\"name\":\"height\",\"type\":\"uint64\"}],\"internalType\":\"structReplicaSets.ReplicaSet[]\",\"name\":\"items\",\"type\":\"tuple[]\"},{\"internalType\":\"string\",\"name\":\"next\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"trustedRouter\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"string\",\"name\":\"queue\",\"type\":\"string\"},{\"internalType\":\"bytes20\",\"name\":\"primary\",\"type\":\"bytes20\"},{\"internalType\":\"bytes20[]\",\"name\":\"secondaries\",\"type\":\"bytes20[]\"},{\"internalType\":\"uint64\",\"name\":\"replaces\",\"type\":\"uint64\"},{\"internalType\":\"bytes20\",\"name\":\"signer\",\"type\":\"bytes20\"}],\"internalType\":\"structReplicaSets.Update\",\"name\":\"u\",\"type\":\"tuple\"}],\"name\":\"update\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"string\",\"name\":\"queue\",\"type\":\"string\"},{\"internalType\":\"bytes20\",\"name\":\"primary\",\"type\":\"bytes20\"},{\"internalType\":\"bytes20[]\",\"name\":\"secondaries\",\"type\":\"bytes20[]\"},{\"internalType\":\"uint64\",\"name\":\"replaces\",\"type\":\"uint64\"},{\"internalType\":\"bytes20\",\"name\":\"signer\",\"type\":\"bytes20\"}],\"internalType\":\"structReplicaSets.Update[]\",\"name\":\"us\",\"type\":\"tuple[]\"}],\"name\":\"updateMany\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "ReplicaSets",
	Bin: "0x60c060405234801561000f575f5ffd5b50604051611bf1380380611bf183398101604081905261002e9161005c565b6001600160a01b039182166080521660a052610094565b6001600160a01b0381168114610059575f5ffd5b50565b5f5f6040838503121561006d575f5ffd5b825161007881610045565b602084015190925061008981610045565b809150509250929050565b60805160a051611b196100d85f395f818161016f01528181610aac01528181610c750152610d7101525f8181610119015281816101b601526107bc0152611b195ff3fe608060405234801561000f575f5ffd5b50600436106100b1575f3560e01c806369fc09b91161006e57806369fc09b9146101615780637b1039991461016a578063950bff9f146101a95780639acda3bb146101b1578063e894140b146101d8578063e9cf643d146101f9575f5ffd5b806306661abd146100b5578063106e5213146100cc5780633f7b5e40146100e15780634ed3885e146100e9578063572b6c051461010957806360dd580914610159575b5f5ffd5b6002545b6040519081526020015b60405180910390f35b6100df6100da366004611205565b61020c565b005b6100b9608081565b6100fc6100f73660046112b8565b6103c8565b6040516100c391906113fc565b61014961011736600461142c565b7f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0390811691161490565b60405190151581526020016100c3565b6100b9600881565b6100b961010081565b6101917f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b0390911681526020016100c3565b6100b9604081565b6101917f000000000000000000000000000000000000000000000000000000000000000081565b6101eb6101e6366004611447565b610483565b6040516100c392919061148e565b6100df6102073660046114fb565b610760565b8015806102195750604081115b156102685760408051639a74cc4160e01b815260048101919091525f604482015260606024820152600a6064820152696261645f75706461746560b01b608482015260a4015b60405180910390fd5b5f6102716107b0565b90505f5b828110156103c2575f6102ab85858481811061029357610293611531565b90506020028101906102a59190611545565b8461081d565b80519091501561038d577f6737a9a5e298da941d5a7d555b948333c6521544573dd2bfd9820cb021655c0d8585848181106102e8576102e8611531565b90506020028101906102fa9190611545565b6103049080611563565b87878681811061031657610316611531565b90506020028101906103289190611545565b6103399060808101906060016115a5565b88888781811061034b5761034b611531565b905060200281019061035d9190611545565b61036e9060a08101906080016115e0565b85604051610380959493929190611623565b60405180910390a16103b9565b6103b98585848181106103a2576103a2611531565b90506020028101906103b49190611545565b610e96565b50600101610275565b50505050565b6103d06111d1565b5f83836040516103e1929190611673565b60408051918290039091205f818152602081905291822054909250600160a01b90046001600160401b0316900361042f57838360405163181ef97760e21b815260040161025f929190611682565b61047984848080601f0160208091040260200160405190810160405280939291908181526020018383808284375f9201829052508681526020819052604090209250611078915050565b9150505b92915050565b6060805f84156104dc5760015f87876040516104a0929190611673565b604051809103902081526020019081526020015f20549050805f036104dc57858560405163181ef97760e21b815260040161025f929190611682565b8315806104ea575061010084115b156104f55761010093505b5f61050085836116b1565b60025490915081111561051257506002545b61051c82826116c4565b6001600160401b03811115610533576105336116d7565b60405190808252806020026020018201604052801561056c57816020015b6105596111d1565b8152602001906001900390816105515790505b509350815b81811015610690576106626002828154811061058f5761058f611531565b905f5260205f200180546105a2906116eb565b80601f01602080910402602001604051908101604052809291908181526020018280546105ce906116eb565b80156106195780601f106105f057610100808354040283529160200191610619565b820191905f5260205f20905b8154815290600101906020018083116105fc57829003601f168201915b50505050505f5f6002858154811061063357610633611531565b905f5260205f20016040516106489190611723565b604051809103902081526020019081526020015f20611078565b8561066d85846116c4565b8151811061067d5761067d611531565b6020908102919091010152600101610571565b50600254811080156106a257505f8451115b156107565760026106b46001836116c4565b815481106106c4576106c4611531565b905f5260205f200180546106d7906116eb565b80601f0160208091040260200160405190810160405280929190818152602001828054610703906116eb565b801561074e5780601f106107255761010080835404028352916020019161074e565b820191905f5260205f20905b81548152906001019060200180831161073157829003601f168201915b505050505092505b5050935093915050565b5f6107728261076d6107b0565b61081d565b8051909150156107a3576107868280611563565b82604051639a74cc4160e01b815260040161025f93929190611794565b6107ac82610e96565b5050565b5f336001600160a01b037f0000000000000000000000000000000000000000000000000000000000000000161480156107ea575060143610155b15610818575f366107fc6014826116c4565b6108079282906117c3565b610810916117ea565b60601c905090565b503390565b60605f61082a8480611563565b91505080158061083a5750608081115b8061085d57505f61085160408601602087016115e0565b6001600160601b031916145b80610876575060086108726040860186611828565b9050115b156108a357505060408051808201909152600a8152696261645f75706461746560b01b602082015261047d565b5f5b6108b26040860186611828565b9050811015610a07576108cb60408601602087016115e0565b6001600160601b0319166108e26040870187611828565b838181106108f2576108f2611531565b905060200201602081019061090791906115e0565b6001600160601b03191603610942576040518060400160405280600a8152602001696261645f75706461746560b01b8152509250505061047d565b5f5b818110156109fe576109596040870187611828565b8381811061096957610969611531565b905060200201602081019061097e91906115e0565b6001600160601b0319166109956040880188611828565b838181106109a5576109a5611531565b90506020020160208101906109ba91906115e0565b6001600160601b031916036109f6576040518060400160405280600a8152602001696261645f75706461746560b01b815250935050505061047d565b600101610944565b506001016108a5565b505f8080610a158780611563565b604051610a23929190611673565b604080519182900390912082526020820192909252015f208054909150600160a01b90046001600160401b0316610a6060808701606088016115a5565b6001600160401b031614610aa157604051806040016040528060118152602001701cdd185b1957dc995c1b1a58d857dcd95d607a1b8152509250505061047d565b5f6001600160a01b037f000000000000000000000000000000000000000000000000000000000000000016639b36e561610ae160a0890160808a016115e0565b6040516001600160e01b031960e084901b1681526001600160601b03199091166004820152602401602060405180830381865afa158015610b24573d5f5f3e3d5ffd5b505050506040513d601f19601f82011682018060405250810190610b48919061186d565b90506001600160a01b038116610b87576040518060400160405280600c81526020016b756e6b6e6f776e5f6e6f646560a01b815250935050505061047d565b846001600160a01b0316816001600160a01b031614610bd1576040518060400160405280600e81526020016d3737ba2fba3432afb9b4b3b732b960911b815250935050505061047d565b8154600160a01b90046001600160401b031615610c0757610c0182610bfc60a0890160808a016115e0565b611147565b15610c3e565b610c1760408701602088016115e0565b6001600160601b031916610c3160a08801608089016115e0565b6001600160601b03191614155b15610c72576040518060400160405280600c81526020016b3737ba2fb0afb6b2b6b132b960a11b815250935050505061047d565b5f7f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0316639b36e561610cb260408a0160208b016115e0565b6040516001600160e01b031960e084901b1681526001600160601b03199091166004820152602401602060405180830381865afa158015610cf5573d5f5f3e3d5ffd5b505050506040513d601f19601f82011682018060405250810190610d19919061186d565b6001600160a01b031603610d56576040518060400160405280600c81526020016b756e6b6e6f776e5f6e6f646560a01b815250935050505061047d565b5f5b610d656040880188611828565b9050811015610e7d575f7f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0316639b36e561610dab60408b018b611828565b85818110610dbb57610dbb611531565b9050602002016020810190610dd091906115e0565b6040516001600160e01b031960e084901b1681526001600160601b03199091166004820152602401602060405180830381865afa158015610e13573d5f5f3e3d5ffd5b505050506040513d601f19601f82011682018060405250810190610e37919061186d565b6001600160a01b031603610e75576040518060400160405280600c81526020016b756e6b6e6f776e5f6e6f646560a01b81525094505050505061047d565b600101610d58565b505060408051602081019091525f815295945050505050565b5f610ea18280611563565b604051610eaf929190611673565b60408051918290039091205f8181526020819052918220805491935091600160a01b9091046001600160401b03169003610f21576002610eef8480611563565b82546001810184555f938452602090932090920191610f0e91836118ea565b506002545f838152600160205260409020555b610f3160408401602085016115e0565b81546001600160a01b03191660609190911c178082556001908290601490610f6a908490600160a01b90046001600160401b03166119a3565b92506101000a8154816001600160401b0302191690836001600160401b03160217905550826080016020810190610fa191906115e0565b60018201805460609290921c6001600160e01b031990921691909117600160a01b436001600160401b031602179055610fdd6040840184611828565b6002830191610fed9190836119c2565b507fdf1ce03386ab0a67b03332b2f13dd915ceaaafb41dd1192a3d0aa457a0c62fa96110198480611563565b61102960408701602088016115e0565b6110366040880188611828565b8654600160a01b90046001600160401b031661105860a08b0160808c016115e0565b60405161106b9796959493929190611a52565b60405180910390a1505050565b6110806111d1565b6040805160c081018252848152835460601b6001600160601b03191660208083019190915260028501805484518184028101840186528181529394850193928301828280156110fa57602002820191905f5260205f20905b815460601b6001600160601b03191681526001909101906020018083116110d8575b505050918352505083546001600160401b03600160a01b918290048116602084015260018601546001600160601b0319606082811b91909116604086015292900416910152905092915050565b81545f906001600160601b031980841660609290921b160361116b5750600161047d565b5f5b60028401548110156111c857826001600160601b03191684600201828154811061119957611199611531565b5f9182526020909120015460601b6001600160601b031916036111c057600191505061047d565b60010161116d565b505f9392505050565b6040805160c08101825260608082525f6020830181905292820181905281018290526080810182905260a081019190915290565b5f5f60208385031215611216575f5ffd5b82356001600160401b0381111561122b575f5ffd5b8301601f8101851361123b575f5ffd5b80356001600160401b03811115611250575f5ffd5b8560208260051b8401011115611264575f5ffd5b6020919091019590945092505050565b5f5f83601f840112611284575f5ffd5b5081356001600160401b0381111561129a575f5ffd5b6020830191508360208285010111156112b1575f5ffd5b9250929050565b5f5f602083850312156112c9575f5ffd5b82356001600160401b038111156112de575f5ffd5b6112ea85828601611274565b90969095509350505050565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b5f815160c0845261133860c08501826112f6565b90506001600160601b03196020840151166020850152604083015184820360408601528181518084526020840191506020830193505f92505b8083101561139d5783516001600160601b03191682526020938401936001939093019290910190611371565b50606085015192506113ba60608701846001600160401b03169052565b608085015192506113d760808701846001600160601b0319169052565b60a085015192506113f360a08701846001600160401b03169052565b95945050505050565b602081525f61140e6020830184611324565b9392505050565b6001600160a01b0381168114611429575f5ffd5b50565b5f6020828403121561143c575f5ffd5b813561140e81611415565b5f5f5f60408486031215611459575f5ffd5b83356001600160401b0381111561146e575f5ffd5b61147a86828701611274565b909790965060209590950135949350505050565b5f604082016040835280855180835260608501915060608160051b8601019250602087015f5b828110156114e557605f198786030184526114d0858351611324565b945060209384019391909101906001016114b4565b5050505082810360208401526113f381856112f6565b5f6020828403121561150b575f5ffd5b81356001600160401b03811115611520575f5ffd5b820160a0818503121561140e575f5ffd5b634e487b7160e01b5f52603260045260245ffd5b5f8235609e19833603018112611559575f5ffd5b9190910192915050565b5f5f8335601e19843603018112611578575f5ffd5b8301803591506001600160401b03821115611591575f5ffd5b6020019150368190038213156112b1575f5ffd5b5f602082840312156115b5575f5ffd5b81356001600160401b038116811461140e575f5ffd5b6001600160601b031981168114611429575f5ffd5b5f602082840312156115f0575f5ffd5b813561140e816115cb565b81835281816020850137505f828201602090810191909152601f909101601f19169091010190565b608081525f6116366080830187896115fb565b6001600160401b03861660208401526001600160601b031985166040840152828103606084015261166781856112f6565b98975050505050505050565b818382375f9101908152919050565b602081525f6116956020830184866115fb565b949350505050565b634e487b7160e01b5f52601160045260245ffd5b8082018082111561047d5761047d61169d565b8181038181111561047d5761047d61169d565b634e487b7160e01b5f52604160045260245ffd5b600181811c908216806116ff57607f821691505b60208210810361171d57634e487b7160e01b5f52602260045260245ffd5b50919050565b5f5f8354611730816116eb565b600182168015611747576001811461175c57611789565b60ff1983168652811515820286019350611789565b865f5260205f205f5b8381101561178157815488820152600190910190602001611765565b505081860193505b509195945050505050565b604081525f6117a76040830185876115fb565b82810360208401526117b981856112f6565b9695505050505050565b5f5f858511156117d1575f5ffd5b838611156117dd575f5ffd5b5050820193919092039150565b80356001600160601b03198116906014841015611821576001600160601b03196001600160601b03198560140360031b1b82161691505b5092915050565b5f5f8335601e1984360301811261183d575f5ffd5b8301803591506001600160401b03821115611856575f5ffd5b6020019150600581901b36038213156112b1575f5ffd5b5f6020828403121561187d575f5ffd5b815161140e81611415565b5f5b8281101561189f575f8282015560010161188a565b505050565b601f82111561189f578282111561189f57805f5260205f20601f840160051c60208510156118cf57505f5b6118e381601f860160051c03828401611888565b5050505050565b6001600160401b03831115611901576119016116d7565b6119158361190f83546116eb565b836118a4565b5f601f841160018114611946575f851561192f5750838201355b5f19600387901b1c1916600186901b1783556118e3565b5f83815260208120601f198716915b828110156119755786850135825560209485019460019092019101611955565b5086821015611991575f1960f88860031b161c19848701351681555b505060018560011b0183555050505050565b6001600160401b03818116838216019081111561047d5761047d61169d565b6001600160401b038311156119d9576119d96116d7565b680100000000000000008311156119f2576119f26116d7565b805483825580841015611a1657815f528360205f2001611a1485830382611888565b505b5081815f5260205f205f5b85811015611a4a578235611a34816115cb565b60601c8282015560209290920191600101611a21565b505050505050565b60a081525f611a6560a08301898b6115fb565b6001600160601b0319881660208481019190915283820360408501528682528791015f5b87811015611aba578235611a9c816115cb565b6001600160601b031916825260209283019290910190600101611a89565b506001600160401b03861660608501526001600160601b0319851660808501529150611667905056fea26469706673582212206583dd46c22f52ceaf9a204948703b95cf8a0654b35de8b4664643f0b8218b8164736f6c63430008250033",
}

// ReplicaSets is an auto generated Go binding around an Ethereum contract.
type ReplicaSets struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *ReplicaSets) GetABI() abi.ABI {
	return c.abi
}

// NewReplicaSets creates a new instance of ReplicaSets.
func NewReplicaSets() *ReplicaSets {
	parsed, err := ReplicaSetsMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &ReplicaSets{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *ReplicaSets) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address router, address nodes) returns()
func (replicaSets *ReplicaSets) PackConstructor(router common.Address, nodes common.Address) []byte {
	enc, err := replicaSets.abi.Pack("", router, nodes)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackMAXBATCH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x950bff9f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_BATCH() view returns(uint256)
func (replicaSets *ReplicaSets) PackMAXBATCH() []byte {
	enc, err := replicaSets.abi.Pack("MAX_BATCH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXBATCH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x950bff9f.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_BATCH() view returns(uint256)
func (replicaSets *ReplicaSets) TryPackMAXBATCH() ([]byte, error) {
	return replicaSets.abi.Pack("MAX_BATCH")
}

// UnpackMAXBATCH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x950bff9f.
//
// Solidity: function MAX_BATCH() view returns(uint256)
func (replicaSets *ReplicaSets) UnpackMAXBATCH(data []byte) (*big.Int, error) {
	out, err := replicaSets.abi.Unpack("MAX_BATCH", data)
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
func (replicaSets *ReplicaSets) PackMAXPAGE() []byte {
	enc, err := replicaSets.abi.Pack("MAX_PAGE")
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
func (replicaSets *ReplicaSets) TryPackMAXPAGE() ([]byte, error) {
	return replicaSets.abi.Pack("MAX_PAGE")
}

// UnpackMAXPAGE is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x69fc09b9.
//
// Solidity: function MAX_PAGE() view returns(uint256)
func (replicaSets *ReplicaSets) UnpackMAXPAGE(data []byte) (*big.Int, error) {
	out, err := replicaSets.abi.Unpack("MAX_PAGE", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackMAXQUEUE is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3f7b5e40.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_QUEUE() view returns(uint256)
func (replicaSets *ReplicaSets) PackMAXQUEUE() []byte {
	enc, err := replicaSets.abi.Pack("MAX_QUEUE")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXQUEUE is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3f7b5e40.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_QUEUE() view returns(uint256)
func (replicaSets *ReplicaSets) TryPackMAXQUEUE() ([]byte, error) {
	return replicaSets.abi.Pack("MAX_QUEUE")
}

// UnpackMAXQUEUE is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x3f7b5e40.
//
// Solidity: function MAX_QUEUE() view returns(uint256)
func (replicaSets *ReplicaSets) UnpackMAXQUEUE(data []byte) (*big.Int, error) {
	out, err := replicaSets.abi.Unpack("MAX_QUEUE", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackMAXSECONDARIES is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x60dd5809.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_SECONDARIES() view returns(uint256)
func (replicaSets *ReplicaSets) PackMAXSECONDARIES() []byte {
	enc, err := replicaSets.abi.Pack("MAX_SECONDARIES")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXSECONDARIES is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x60dd5809.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_SECONDARIES() view returns(uint256)
func (replicaSets *ReplicaSets) TryPackMAXSECONDARIES() ([]byte, error) {
	return replicaSets.abi.Pack("MAX_SECONDARIES")
}

// UnpackMAXSECONDARIES is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x60dd5809.
//
// Solidity: function MAX_SECONDARIES() view returns(uint256)
func (replicaSets *ReplicaSets) UnpackMAXSECONDARIES(data []byte) (*big.Int, error) {
	out, err := replicaSets.abi.Unpack("MAX_SECONDARIES", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06661abd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function count() view returns(uint256)
func (replicaSets *ReplicaSets) PackCount() []byte {
	enc, err := replicaSets.abi.Pack("count")
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
func (replicaSets *ReplicaSets) TryPackCount() ([]byte, error) {
	return replicaSets.abi.Pack("count")
}

// UnpackCount is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x06661abd.
//
// Solidity: function count() view returns(uint256)
func (replicaSets *ReplicaSets) UnpackCount(data []byte) (*big.Int, error) {
	out, err := replicaSets.abi.Unpack("count", data)
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
func (replicaSets *ReplicaSets) PackIsTrustedForwarder(forwarder common.Address) []byte {
	enc, err := replicaSets.abi.Pack("isTrustedForwarder", forwarder)
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
func (replicaSets *ReplicaSets) TryPackIsTrustedForwarder(forwarder common.Address) ([]byte, error) {
	return replicaSets.abi.Pack("isTrustedForwarder", forwarder)
}

// UnpackIsTrustedForwarder is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x572b6c05.
//
// Solidity: function isTrustedForwarder(address forwarder) view returns(bool)
func (replicaSets *ReplicaSets) UnpackIsTrustedForwarder(data []byte) (bool, error) {
	out, err := replicaSets.abi.Unpack("isTrustedForwarder", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackRegistry is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7b103999.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function registry() view returns(address)
func (replicaSets *ReplicaSets) PackRegistry() []byte {
	enc, err := replicaSets.abi.Pack("registry")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRegistry is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7b103999.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function registry() view returns(address)
func (replicaSets *ReplicaSets) TryPackRegistry() ([]byte, error) {
	return replicaSets.abi.Pack("registry")
}

// UnpackRegistry is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x7b103999.
//
// Solidity: function registry() view returns(address)
func (replicaSets *ReplicaSets) UnpackRegistry(data []byte) (common.Address, error) {
	out, err := replicaSets.abi.Unpack("registry", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackSet is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4ed3885e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function set(string queue) view returns((string,bytes20,bytes20[],uint64,bytes20,uint64))
func (replicaSets *ReplicaSets) PackSet(queue string) []byte {
	enc, err := replicaSets.abi.Pack("set", queue)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSet is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4ed3885e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function set(string queue) view returns((string,bytes20,bytes20[],uint64,bytes20,uint64))
func (replicaSets *ReplicaSets) TryPackSet(queue string) ([]byte, error) {
	return replicaSets.abi.Pack("set", queue)
}

// UnpackSet is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x4ed3885e.
//
// Solidity: function set(string queue) view returns((string,bytes20,bytes20[],uint64,bytes20,uint64))
func (replicaSets *ReplicaSets) UnpackSet(data []byte) (ReplicaSetsReplicaSet, error) {
	out, err := replicaSets.abi.Unpack("set", data)
	if err != nil {
		return *new(ReplicaSetsReplicaSet), err
	}
	out0 := *abi.ConvertType(out[0], new(ReplicaSetsReplicaSet)).(*ReplicaSetsReplicaSet)
	return out0, nil
}

// PackSets is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe894140b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function sets(string after_, uint256 limit) view returns((string,bytes20,bytes20[],uint64,bytes20,uint64)[] items, string next)
func (replicaSets *ReplicaSets) PackSets(after string, limit *big.Int) []byte {
	enc, err := replicaSets.abi.Pack("sets", after, limit)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSets is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe894140b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function sets(string after_, uint256 limit) view returns((string,bytes20,bytes20[],uint64,bytes20,uint64)[] items, string next)
func (replicaSets *ReplicaSets) TryPackSets(after string, limit *big.Int) ([]byte, error) {
	return replicaSets.abi.Pack("sets", after, limit)
}

// SetsOutput serves as a container for the return parameters of contract
// method Sets.
type SetsOutput struct {
	Items []ReplicaSetsReplicaSet
	Next  string
}

// UnpackSets is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe894140b.
//
// Solidity: function sets(string after_, uint256 limit) view returns((string,bytes20,bytes20[],uint64,bytes20,uint64)[] items, string next)
func (replicaSets *ReplicaSets) UnpackSets(data []byte) (SetsOutput, error) {
	out, err := replicaSets.abi.Unpack("sets", data)
	outstruct := new(SetsOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Items = *abi.ConvertType(out[0], new([]ReplicaSetsReplicaSet)).(*[]ReplicaSetsReplicaSet)
	outstruct.Next = *abi.ConvertType(out[1], new(string)).(*string)
	return *outstruct, nil
}

// PackTrustedRouter is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9acda3bb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function trustedRouter() view returns(address)
func (replicaSets *ReplicaSets) PackTrustedRouter() []byte {
	enc, err := replicaSets.abi.Pack("trustedRouter")
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
func (replicaSets *ReplicaSets) TryPackTrustedRouter() ([]byte, error) {
	return replicaSets.abi.Pack("trustedRouter")
}

// UnpackTrustedRouter is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x9acda3bb.
//
// Solidity: function trustedRouter() view returns(address)
func (replicaSets *ReplicaSets) UnpackTrustedRouter(data []byte) (common.Address, error) {
	out, err := replicaSets.abi.Unpack("trustedRouter", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackUpdate is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe9cf643d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function update((string,bytes20,bytes20[],uint64,bytes20) u) returns()
func (replicaSets *ReplicaSets) PackUpdate(u ReplicaSetsUpdate) []byte {
	enc, err := replicaSets.abi.Pack("update", u)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackUpdate is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe9cf643d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function update((string,bytes20,bytes20[],uint64,bytes20) u) returns()
func (replicaSets *ReplicaSets) TryPackUpdate(u ReplicaSetsUpdate) ([]byte, error) {
	return replicaSets.abi.Pack("update", u)
}

// PackUpdateMany is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x106e5213.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function updateMany((string,bytes20,bytes20[],uint64,bytes20)[] us) returns()
func (replicaSets *ReplicaSets) PackUpdateMany(us []ReplicaSetsUpdate) []byte {
	enc, err := replicaSets.abi.Pack("updateMany", us)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackUpdateMany is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x106e5213.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function updateMany((string,bytes20,bytes20[],uint64,bytes20)[] us) returns()
func (replicaSets *ReplicaSets) TryPackUpdateMany(us []ReplicaSetsUpdate) ([]byte, error) {
	return replicaSets.abi.Pack("updateMany", us)
}

// ReplicaSetsReplicaSetRefused represents a ReplicaSetRefused event raised by the ReplicaSets contract.
type ReplicaSetsReplicaSetRefused struct {
	Queue    string
	Replaces uint64
	Signer   [20]byte
	Reason   string
	Raw      *types.Log // Blockchain specific contextual infos
}

const ReplicaSetsReplicaSetRefusedEventName = "ReplicaSetRefused"

// ContractEventName returns the user-defined event name.
func (ReplicaSetsReplicaSetRefused) ContractEventName() string {
	return ReplicaSetsReplicaSetRefusedEventName
}

// UnpackReplicaSetRefusedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ReplicaSetRefused(string queue, uint64 replaces, bytes20 signer, string reason)
func (replicaSets *ReplicaSets) UnpackReplicaSetRefusedEvent(log *types.Log) (*ReplicaSetsReplicaSetRefused, error) {
	event := "ReplicaSetRefused"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != replicaSets.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ReplicaSetsReplicaSetRefused)
	if len(log.Data) > 0 {
		if err := replicaSets.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range replicaSets.abi.Events[event].Inputs {
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

// ReplicaSetsReplicaSetUpdated represents a ReplicaSetUpdated event raised by the ReplicaSets contract.
type ReplicaSetsReplicaSetUpdated struct {
	Queue       string
	Primary     [20]byte
	Secondaries [][20]byte
	Version     uint64
	UpdatedBy   [20]byte
	Raw         *types.Log // Blockchain specific contextual infos
}

const ReplicaSetsReplicaSetUpdatedEventName = "ReplicaSetUpdated"

// ContractEventName returns the user-defined event name.
func (ReplicaSetsReplicaSetUpdated) ContractEventName() string {
	return ReplicaSetsReplicaSetUpdatedEventName
}

// UnpackReplicaSetUpdatedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ReplicaSetUpdated(string queue, bytes20 primary, bytes20[] secondaries, uint64 version, bytes20 updatedBy)
func (replicaSets *ReplicaSets) UnpackReplicaSetUpdatedEvent(log *types.Log) (*ReplicaSetsReplicaSetUpdated, error) {
	event := "ReplicaSetUpdated"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != replicaSets.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(ReplicaSetsReplicaSetUpdated)
	if len(log.Data) > 0 {
		if err := replicaSets.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range replicaSets.abi.Events[event].Inputs {
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
func (replicaSets *ReplicaSets) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], replicaSets.abi.Errors["NotFound"].ID.Bytes()[:4]) {
		return replicaSets.UnpackNotFoundError(raw[4:])
	}
	if bytes.Equal(raw[:4], replicaSets.abi.Errors["Refused"].ID.Bytes()[:4]) {
		return replicaSets.UnpackRefusedError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// ReplicaSetsNotFound represents a NotFound error raised by the ReplicaSets contract.
type ReplicaSetsNotFound struct {
	Queue string
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotFound(string queue)
func ReplicaSetsNotFoundErrorID() common.Hash {
	return common.HexToHash("0x607be5dc64b1cc48d786f50883cd9879650017ea06baaa551546973e3f10503f")
}

// UnpackNotFoundError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotFound(string queue)
func (replicaSets *ReplicaSets) UnpackNotFoundError(raw []byte) (*ReplicaSetsNotFound, error) {
	out := new(ReplicaSetsNotFound)
	if err := replicaSets.abi.UnpackIntoInterface(out, "NotFound", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// ReplicaSetsRefused represents a Refused error raised by the ReplicaSets contract.
type ReplicaSetsRefused struct {
	Queue  string
	Reason string
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error Refused(string queue, string reason)
func ReplicaSetsRefusedErrorID() common.Hash {
	return common.HexToHash("0x9a74cc41bedea87a658064154caf7731d402a82b26f5fb8e9a9605b363a8c591")
}

// UnpackRefusedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error Refused(string queue, string reason)
func (replicaSets *ReplicaSets) UnpackRefusedError(raw []byte) (*ReplicaSetsRefused, error) {
	out := new(ReplicaSetsRefused)
	if err := replicaSets.abi.UnpackIntoInterface(out, "Refused", raw); err != nil {
		return nil, err
	}
	return out, nil
}
