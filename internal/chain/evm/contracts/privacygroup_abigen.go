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

// PrivacyGroupEndorsement is an auto generated low-level Go binding around an user-defined struct.
type PrivacyGroupEndorsement struct {
	Member    string
	Signature []byte
}

// PrivacyGroupMember is an auto generated low-level Go binding around an user-defined struct.
type PrivacyGroupMember struct {
	Id     string
	Signer common.Address
}

// PrivacyGroupState is an auto generated low-level Go binding around an user-defined struct.
type PrivacyGroupState struct {
	Id    string
	Owner string
	Data  string
}

// PrivacyGroupMetaData contains all meta data concerning the PrivacyGroup contract.
var PrivacyGroupMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"router\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[],\"name\":\"BadID\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"BadMembers\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"index\",\"type\":\"uint256\"}],\"name\":\"BadSignature\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"threshold\",\"type\":\"uint256\"}],\"name\":\"BadThreshold\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"endorsements\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"threshold\",\"type\":\"uint256\"}],\"name\":\"BelowThreshold\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"index\",\"type\":\"uint256\"}],\"name\":\"DuplicateSigner\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"group\",\"type\":\"string\"}],\"name\":\"GroupExists\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"txId\",\"type\":\"string\"}],\"name\":\"IntentAlreadyConfirmed\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"group\",\"type\":\"string\"}],\"name\":\"NoSuchGroup\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"id\",\"type\":\"string\"}],\"name\":\"NoSuchState\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"caller\",\"type\":\"address\"}],\"name\":\"NotDeployer\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"what\",\"type\":\"string\"}],\"name\":\"NotFound\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"id\",\"type\":\"string\"}],\"name\":\"StateExists\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"id\",\"type\":\"string\"}],\"name\":\"StateSpent\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"TooMany\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"index\",\"type\":\"uint256\"}],\"name\":\"WrongSigner\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"string\",\"name\":\"group\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"deployer\",\"type\":\"address\"},{\"components\":[{\"internalType\":\"string\",\"name\":\"id\",\"type\":\"string\"},{\"internalType\":\"address\",\"name\":\"signer\",\"type\":\"address\"}],\"indexed\":false,\"internalType\":\"structPrivacyGroup.Member[]\",\"name\":\"members\",\"type\":\"tuple[]\"},{\"indexed\":false,\"internalType\":\"uint8\",\"name\":\"threshold\",\"type\":\"uint8\"}],\"name\":\"GroupDeployed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"string\",\"name\":\"group\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"txId\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"string[]\",\"name\":\"spends\",\"type\":\"string[]\"},{\"indexed\":false,\"internalType\":\"string[]\",\"name\":\"creates\",\"type\":\"string[]\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"digest\",\"type\":\"bytes32\"}],\"name\":\"IntentConfirmed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"string\",\"name\":\"group\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"string[]\",\"name\":\"states\",\"type\":\"string[]\"},{\"components\":[{\"internalType\":\"string\",\"name\":\"id\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"owner\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"data\",\"type\":\"string\"}],\"indexed\":false,\"internalType\":\"structPrivacyGroup.State[]\",\"name\":\"minted\",\"type\":\"tuple[]\"}],\"name\":\"StatesMinted\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"MAX_ID\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MAX_IO\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"MAX_MEMBERS\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"group\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"txId\",\"type\":\"string\"},{\"internalType\":\"string[]\",\"name\":\"spends\",\"type\":\"string[]\"},{\"components\":[{\"internalType\":\"string\",\"name\":\"id\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"owner\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"data\",\"type\":\"string\"}],\"internalType\":\"structPrivacyGroup.State[]\",\"name\":\"creates\",\"type\":\"tuple[]\"},{\"components\":[{\"internalType\":\"string\",\"name\":\"member\",\"type\":\"string\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"internalType\":\"structPrivacyGroup.Endorsement[]\",\"name\":\"endorsements\",\"type\":\"tuple[]\"}],\"name\":\"confirm\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"group\",\"type\":\"string\"},{\"components\":[{\"internalType\":\"string\",\"name\":\"id\",\"type\":\"string\"},{\"internalType\":\"address\",\"name\":\"signer\",\"type\":\"address\"}],\"internalType\":\"structPrivacyGroup.Member[]\",\"name\":\"members\",\"type\":\"tuple[]\"},{\"internalType\":\"uint8\",\"name\":\"threshold\",\"type\":\"uint8\"}],\"name\":\"deploy\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"group\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"txId\",\"type\":\"string\"},{\"internalType\":\"string[]\",\"name\":\"spends\",\"type\":\"string[]\"},{\"components\":[{\"internalType\":\"string\",\"name\":\"id\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"owner\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"data\",\"type\":\"string\"}],\"internalType\":\"structPrivacyGroup.State[]\",\"name\":\"creates\",\"type\":\"tuple[]\"}],\"name\":\"digestOf\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"domainSeparator\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"group\",\"type\":\"string\"}],\"name\":\"groupOf\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"deployer\",\"type\":\"address\"},{\"internalType\":\"uint8\",\"name\":\"threshold\",\"type\":\"uint8\"},{\"internalType\":\"uint8\",\"name\":\"size\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"group\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"txId\",\"type\":\"string\"}],\"name\":\"intentOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"height\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"forwarder\",\"type\":\"address\"}],\"name\":\"isTrustedForwarder\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"group\",\"type\":\"string\"},{\"components\":[{\"internalType\":\"string\",\"name\":\"id\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"owner\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"data\",\"type\":\"string\"}],\"internalType\":\"structPrivacyGroup.State[]\",\"name\":\"minted\",\"type\":\"tuple[]\"}],\"name\":\"mint\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"group\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"member\",\"type\":\"string\"}],\"name\":\"signerOf\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"group\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"id\",\"type\":\"string\"}],\"name\":\"stateOf\",\"outputs\":[{\"internalType\":\"uint64\",\"name\":\"createdAt\",\"type\":\"uint64\"},{\"internalType\":\"bool\",\"name\":\"spent\",\"type\":\"bool\"},{\"internalType\":\"uint64\",\"name\":\"spentAt\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"trustedRouter\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "PrivacyGroup",
	Bin: "0x60a0604052348015600e575f5ffd5b50604051612130380380612130833981016040819052602b91603b565b6001600160a01b03166080526066565b5f60208284031215604a575f5ffd5b81516001600160a01b0381168114605f575f5ffd5b9392505050565b6080516120a461008c5f395f81816101810152818161022d01526112a201526120a45ff3fe608060405234801561000f575f5ffd5b50600436106100e5575f3560e01c806370706c4d11610088578063ea0e35b111610063578063ea0e35b114610153578063ecbefc9d14610262578063f66f9af014610275578063f698da2514610288575f5ffd5b806370706c4d146101ec5780639acda3bb146102285780639b994a9c1461024f575f5ffd5b806316bf3570116100c357806316bf35701461015357806317bac05214610169578063572b6c05146101715780635affdaaa146101c1575f5ffd5b8063041c0f35146100e957806313b66b401461012b5780631471e96614610140575b5f5ffd5b6100fc6100f736600461173b565b610290565b604080516001600160401b03948516815292151560208401529216918101919091526060015b60405180910390f35b61013e6101393660046117e5565b610383565b005b61013e61014e36600461186b565b6106e5565b61015b604081565b604051908152602001610122565b61015b608081565b6101b161017f366004611981565b7f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0390811691161490565b6040519015158152602001610122565b6101d46101cf36600461173b565b610a85565b6040516001600160a01b039091168152602001610122565b6101ff6101fa3660046119a1565b610b0f565b604080516001600160a01b03909416845260ff9283166020850152911690820152606001610122565b6101d47f000000000000000000000000000000000000000000000000000000000000000081565b61015b61025d3660046119df565b610bba565b61013e610270366004611aa9565b610efc565b61015b61028336600461173b565b6110c8565b61015b611173565b5f5f5f5f60035f6102b98a8a6040516102aa929190611b07565b60405180910390208989611217565b815260208082019290925260409081015f9081208251808401909352546001600160401b03808216808552600160401b90920416938301939093529092500361032257858560405163181ef97760e21b8152600401610319929190611b3e565b60405180910390fd5b60208101516001600160401b03161561036157805161034390600190611b6d565b60018083602001516103559190611b6d565b93509350935050610379565b805161036f90600190611b6d565b5f5f935093509350505b9450945094915050565b5f8585604051610394929190611b07565b60408051918290039091205f81815260208190529190912054909150600160a81b900460ff16156103dc578585604051637c5e73a760e11b8152600401610319929190611b3e565b6103e68686611267565b828015806103f45750604081115b156104125760405163569acd2160e11b815260040160405180910390fd5b8260ff165f03610420578092505b808360ff161115610449576040516378ea489560e01b815260ff84166004820152602401610319565b5f5b8181101561061b573686868381811061046657610466611b8c565b90506020028101906104789190611ba0565b905061048c6104878280611bbe565b611267565b5f6104978280611bbe565b6040516104a5929190611b07565b604080519182900390912091505f906104c390840160208501611981565b6001600160a01b031614806104f857505f8581526001602090815260408083208484529091529020546001600160a01b031615155b8061053b57505f858152600260209081526040808320929161051e918601908601611981565b6001600160a01b0316815260208101919091526040015f205460ff165b156105595760405163569acd2160e11b815260040160405180910390fd5b60405180604001604052808360200160208101906105779190611981565b6001600160a01b03908116825260ff8087166020938401525f8981526001808552604080832088845286528083208751815498880151909516600160a01b026001600160a81b031990981694909516939093179590951790925588825260028352808220926105ea918701908701611981565b6001600160a01b0316815260208101919091526040015f20805460ff1916911515919091179055505060010161044b565b505f610625611296565b604080516060810182526001600160a01b03808416825260ff80891660208085019182528883168587019081525f8b8152918290529086902094518554925191518416600160a81b0260ff60a81b1992909416600160a01b026001600160a81b03199093169416939093171791909116179055519091507f5863590b380d09a314fbde51073a763ef5305428f7c0768837c2591d07081c6f906106d3908a908a9085908b908b908b90611c41565b60405180910390a15050505050505050565b5f6106f08b8b611303565b90506106fc8989611267565b5f818a8a60405161070e929190611b07565b60405190819003812061072d9291602001918252602082015260400190565b60408051601f1981840301815291815281516020928301205f81815260049093529120549091501561077657898960405163bbe7d68560e01b8152600401610319929190611b3e565b60408711806107855750604085115b156107a357604051636b2d630f60e11b815260040160405180910390fd5b5f6107b48d8d8d8d8d8d8d8d610bba565b90506107c283828787611362565b5f5b888110156108f6575f60035f6107fd878e8e878181106107e6576107e6611b8c565b90506020028101906107f89190611bbe565b611217565b815260208101919091526040015f90812080549092506001600160401b03169003610861578a8a8381811061083457610834611b8c565b90506020028101906108469190611bbe565b604051633b07184560e21b8152600401610319929190611b3e565b8054600160401b90046001600160401b0316156108b7578a8a8381811061088a5761088a611b8c565b905060200281019061089c9190611bbe565b6040516303e8e25360e21b8152600401610319929190611b3e565b6108c2436001611d1c565b81546001600160401b0391909116600160401b026fffffffffffffffff0000000000000000199091161790556001016107c4565b505f866001600160401b0381111561091057610910611d2f565b60405190808252806020026020018201604052801561094357816020015b606081526020019060019003908161092e5790505b5090505f5b87811015610a0f57610987858a8a8481811061096657610966611b8c565b90506020028101906109789190611d43565b6109829080611bbe565b611673565b88888281811061099957610999611b8c565b90506020028101906109ab9190611d43565b6109b59080611bbe565b8080601f0160208091040260200160405190810160405280939291908181526020018383808284375f9201919091525050845185925084915081106109fc576109fc611b8c565b6020908102919091010152600101610948565b50610a1b436001611d1c565b60045f8581526020019081526020015f20819055507fb5e69c32bebfedf9f58032e4eae2aa2ef09b6cc27e2c908ad4a62d7202d182818e8e8e8e8e8e8789604051610a6d989796959493929190611dd1565b60405180910390a15050505050505050505050505050565b5f5f60015f8787604051610a9a929190611b07565b604051809103902081526020019081526020015f205f8585604051610ac0929190611b07565b604080519182900390912082526020820192909252015f20546001600160a01b0316905080610b0657838360405163181ef97760e21b8152600401610319929190611b3e565b95945050505050565b5f5f5f5f5f5f8787604051610b25929190611b07565b604080519182900390912082526020808301939093529081015f908120825160608101845290546001600160a01b038116825260ff600160a01b8204811695830195909552600160a81b90049093169183018290529192509003610ba057858560405163181ef97760e21b8152600401610319929190611b3e565b805160208201516040909201519097919650945092505050565b5f80846001600160401b03811115610bd457610bd4611d2f565b604051908082528060200260200182016040528015610bfd578160200160208202803683370190505b5090505f5b85811015610c6957868682818110610c1c57610c1c611b8c565b9050602002810190610c2e9190611bbe565b604051610c3c929190611b07565b6040518091039020828281518110610c5657610c56611b8c565b6020908102919091010152600101610c02565b505f836001600160401b03811115610c8357610c83611d2f565b604051908082528060200260200182016040528015610cac578160200160208202803683370190505b5090505f5b84811015610dcd5736868683818110610ccc57610ccc611b8c565b9050602002810190610cde9190611d43565b90507f577d6512a0a4268715f724c27a63b9763dbee7dcea967c4c244291bb5abc7c90610d0b8280611bbe565b604051610d19929190611b07565b604051908190039020610d2f6020840184611bbe565b604051610d3d929190611b07565b6040518091039020838060400190610d559190611bbe565b604051610d63929190611b07565b604051908190038120610d919493929160200193845260208401929092526040830152606082015260800190565b60405160208183030381529060405280519060200120838381518110610db957610db9611b8c565b602090810291909101015250600101610cb1565b505f7f2ef5468c0e8517c24a2d0288031660c94d11336b41d83290212272683ba2c3d58c8c604051610e00929190611b07565b60405180910390208b8b604051610e18929190611b07565b604051809103902085604051602001610e319190611e7f565b6040516020818303038152906040528051906020012085604051602001610e589190611e7f565b60408051601f198184030181528282528051602091820120908301969096528101939093526060830191909152608082015260a081019190915260c001604051602081830303815290604052805190602001209050610eb5611173565b60405161190160f01b602082015260228101919091526042810182905260620160405160208183030381529060405280519060200120935050505098975050505050505050565b5f610f078585611303565b9050610f11611296565b5f828152602081905260409020546001600160a01b03908116911614610f5e57610f39611296565b604051630646601b60e11b81526001600160a01b039091166004820152602401610319565b811580610f6b5750604082115b15610f8957604051636b2d630f60e11b815260040160405180910390fd5b5f826001600160401b03811115610fa257610fa2611d2f565b604051908082528060200260200182016040528015610fd557816020015b6060815260200190600190039081610fc05790505b5090505f5b8381101561108057610ff88386868481811061096657610966611b8c565b84848281811061100a5761100a611b8c565b905060200281019061101c9190611d43565b6110269080611bbe565b8080601f0160208091040260200160405190810160405280939291908181526020018383808284375f92019190915250508451859250849150811061106d5761106d611b8c565b6020908102919091010152600101610fda565b507f98c81cdbbd51d2776caed5e0d1b3cfca7804f555f4415331217dc6705c90962386868387876040516110b8959493929190611eb4565b60405180910390a1505050505050565b5f5f60045f87876040516110dd929190611b07565b604051809103902086866040516110f5929190611b07565b6040519081900381206111149291602001918252602082015260400190565b6040516020818303038152906040528051906020012081526020019081526020015f20549050805f0361115e57838360405163181ef97760e21b8152600401610319929190611b3e565b611169600182611fb1565b9695505050505050565b604080517f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f60208201527f5980326bf843d7787bbd3a6a23c4ba305c09ebdd77d2f6e86740cc76a5f4c018918101919091527fc89efdaa54c0f20c7adf612882df0950f5a951637e0307cdcb4c672f298b8bc660608201524660808201523060a08201525f9060c00160405160208183030381529060405280519060200120905090565b5f838383604051611229929190611b07565b6040519081900381206112489291602001918252602082015260400190565b6040516020818303038152906040528051906020012090509392505050565b8015806112745750608081115b1561129257604051631d99883760e21b815260040160405180910390fd5b5050565b5f336001600160a01b037f0000000000000000000000000000000000000000000000000000000000000000161480156112d0575060143610155b156112fe575f366112e2601482611fb1565b6112ed928290611fc4565b6112f691611feb565b60601c905090565b503390565b5f8282604051611314929190611b07565b60408051918290039091205f818152602081905291822054909250600160a81b900460ff16900361135c578282604051630f2e6bbf60e01b8152600401610319929190611b3e565b92915050565b5f805b8281101561162757365f85858481811061138157611381611b8c565b90506020028101906113939190611ba0565b6113a1906020810190611bbe565b9092509050604181146113ca5760405163a1c9731960e01b815260048101849052602401610319565b5f6113d86020828486611fc4565b6113e191612038565b90505f6113f2604060208587611fc4565b6113fb91612038565b90505f8484604081811061141157611411611b8c565b919091013560f81c915050601b81101561143357611430601b82612055565b90505b601c8160ff16118061146457507f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a082115b156114855760405163a1c9731960e01b815260048101879052602401610319565b604080515f808252602082018084528d905260ff841692820192909252606081018590526080810184905260019060a0016020604051602081039080840390855afa1580156114d6573d5f5f3e3d5ffd5b5050604051601f1901519150506001600160a01b03811661150d5760405163a1c9731960e01b815260048101889052602401610319565b5f8c8152600160205260408120818c8c8b81811061152d5761152d611b8c565b905060200281019061153f9190611ba0565b6115499080611bbe565b604051611557929190611b07565b604080519182900390912082526020808301939093529081015f208151808301909252546001600160a01b038116808352600160a01b90910460ff1692820192909252915015806115bd5750816001600160a01b0316815f01516001600160a01b031614155b156115de5760405163166e934160e11b815260048101899052602401610319565b6020810151600160ff9091161b8981161561160f57604051639f4f72e160e01b8152600481018a9052602401610319565b98909817975050600190950194506113659350505050565b505f85815260208190526040902054600160a01b900460ff168083101561166b576040516322c1720560e21b81526004810184905260248101829052604401610319565b505050505050565b61167d8282611267565b5f60035f61168c868686611217565b815260208101919091526040015f2080549091506001600160401b0316156116cb57828260405163c76d39af60e01b8152600401610319929190611b3e565b6116d6436001611d1c565b815467ffffffffffffffff19166001600160401b0391909116179055505050565b5f5f83601f840112611707575f5ffd5b5081356001600160401b0381111561171d575f5ffd5b602083019150836020828501011115611734575f5ffd5b9250929050565b5f5f5f5f6040858703121561174e575f5ffd5b84356001600160401b03811115611763575f5ffd5b61176f878288016116f7565b90955093505060208501356001600160401b0381111561178d575f5ffd5b611799878288016116f7565b95989497509550505050565b5f5f83601f8401126117b5575f5ffd5b5081356001600160401b038111156117cb575f5ffd5b6020830191508360208260051b8501011115611734575f5ffd5b5f5f5f5f5f606086880312156117f9575f5ffd5b85356001600160401b0381111561180e575f5ffd5b61181a888289016116f7565b90965094505060208601356001600160401b03811115611838575f5ffd5b611844888289016117a5565b909450925050604086013560ff8116811461185d575f5ffd5b809150509295509295909350565b5f5f5f5f5f5f5f5f5f5f60a08b8d031215611884575f5ffd5b8a356001600160401b03811115611899575f5ffd5b6118a58d828e016116f7565b909b5099505060208b01356001600160401b038111156118c3575f5ffd5b6118cf8d828e016116f7565b90995097505060408b01356001600160401b038111156118ed575f5ffd5b6118f98d828e016117a5565b90975095505060608b01356001600160401b03811115611917575f5ffd5b6119238d828e016117a5565b90955093505060808b01356001600160401b03811115611941575f5ffd5b61194d8d828e016117a5565b915080935050809150509295989b9194979a5092959850565b80356001600160a01b038116811461197c575f5ffd5b919050565b5f60208284031215611991575f5ffd5b61199a82611966565b9392505050565b5f5f602083850312156119b2575f5ffd5b82356001600160401b038111156119c7575f5ffd5b6119d3858286016116f7565b90969095509350505050565b5f5f5f5f5f5f5f5f6080898b0312156119f6575f5ffd5b88356001600160401b03811115611a0b575f5ffd5b611a178b828c016116f7565b90995097505060208901356001600160401b03811115611a35575f5ffd5b611a418b828c016116f7565b90975095505060408901356001600160401b03811115611a5f575f5ffd5b611a6b8b828c016117a5565b90955093505060608901356001600160401b03811115611a89575f5ffd5b611a958b828c016117a5565b999c989b5096995094979396929594505050565b5f5f5f5f60408587031215611abc575f5ffd5b84356001600160401b03811115611ad1575f5ffd5b611add878288016116f7565b90955093505060208501356001600160401b03811115611afb575f5ffd5b611799878288016117a5565b818382375f9101908152919050565b81835281816020850137505f828201602090810191909152601f909101601f19169091010190565b602081525f611b51602083018486611b16565b949350505050565b634e487b7160e01b5f52601160045260245ffd5b6001600160401b03828116828216039081111561135c5761135c611b59565b634e487b7160e01b5f52603260045260245ffd5b5f8235603e19833603018112611bb4575f5ffd5b9190910192915050565b5f5f8335601e19843603018112611bd3575f5ffd5b8301803591506001600160401b03821115611bec575f5ffd5b602001915036819003821315611734575f5ffd5b5f5f8335601e19843603018112611c15575f5ffd5b83016020810192503590506001600160401b03811115611c33575f5ffd5b803603821315611734575f5ffd5b608081525f611c5460808301888a611b16565b6001600160a01b038716602084810191909152838203604085015285825281810190600587901b830101875f36829003603e19015b89821015611cfb57858403601f190185528235818112611ca7575f5ffd5b8b01611cb38180611c00565b60408752611cc5604088018284611b16565b91506001600160a01b039050611cdd60208401611966565b16602096870152958501959493909301925060019190910190611c89565b50505060ff861660608601529250611d11915050565b979650505050505050565b8082018082111561135c5761135c611b59565b634e487b7160e01b5f52604160045260245ffd5b5f8235605e19833603018112611bb4575f5ffd5b5f82825180855260208501945060208160051b830101602085015f5b83811015611dc557601f19858403018852815180518085528060208301602087015e5f602082870101526020601f19601f83011686010194505050602082019150602088019750600181019050611d73565b50909695505050505050565b60a081525f611de460a083018a8c611b16565b8281036020840152611df781898b611b16565b83810360408501528681529050602080820190600588901b830101885f5b89811015611e5357848303601f19018452611e30828c611c00565b611e3b858284611b16565b60209687019690955093909301925050600101611e15565b50508481036060860152611e678188611d57565b93505050508260808301529998505050505050505050565b81515f90829060208501835b82811015611ea9578151845260209384019390910190600101611e8b565b509195945050505050565b606081525f611ec7606083018789611b16565b8281036020840152611ed98187611d57565b83810360408501528481529050602080820190600586901b830101865f36829003605e19015b88821015611fa057858403601f190185528235818112611f1d575f5ffd5b8a01611f298180611c00565b60608752611f3b606088018284611b16565b915050611f4b6020830183611c00565b8783036020890152611f5e838284611b16565b92505050611f6f6040830183611c00565b92508682036040880152611f84828483611b16565b9650505050602083019250602085019450600182019150611eff565b50919b9a5050505050505050505050565b8181038181111561135c5761135c611b59565b5f5f85851115611fd2575f5ffd5b83861115611fde575f5ffd5b5050820193919092039150565b80356bffffffffffffffffffffffff198116906014841015612031576bffffffffffffffffffffffff196bffffffffffffffffffffffff198560140360031b1b82161691505b5092915050565b8035602083101561135c575f19602084900360031b1b1692915050565b60ff818116838216019081111561135c5761135c611b5956fea26469706673582212207de8bbe152cb9708321c96dad80de9fbb58e5b2cd2b3b34101836ec29b1284a064736f6c63430008250033",
}

// PrivacyGroup is an auto generated Go binding around an Ethereum contract.
type PrivacyGroup struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *PrivacyGroup) GetABI() abi.ABI {
	return c.abi
}

// NewPrivacyGroup creates a new instance of PrivacyGroup.
func NewPrivacyGroup() *PrivacyGroup {
	parsed, err := PrivacyGroupMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &PrivacyGroup{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *PrivacyGroup) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address router) returns()
func (privacyGroup *PrivacyGroup) PackConstructor(router common.Address) []byte {
	enc, err := privacyGroup.abi.Pack("", router)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackMAXID is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x17bac052.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_ID() view returns(uint256)
func (privacyGroup *PrivacyGroup) PackMAXID() []byte {
	enc, err := privacyGroup.abi.Pack("MAX_ID")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXID is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x17bac052.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_ID() view returns(uint256)
func (privacyGroup *PrivacyGroup) TryPackMAXID() ([]byte, error) {
	return privacyGroup.abi.Pack("MAX_ID")
}

// UnpackMAXID is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x17bac052.
//
// Solidity: function MAX_ID() view returns(uint256)
func (privacyGroup *PrivacyGroup) UnpackMAXID(data []byte) (*big.Int, error) {
	out, err := privacyGroup.abi.Unpack("MAX_ID", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackMAXIO is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x16bf3570.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_IO() view returns(uint256)
func (privacyGroup *PrivacyGroup) PackMAXIO() []byte {
	enc, err := privacyGroup.abi.Pack("MAX_IO")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXIO is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x16bf3570.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_IO() view returns(uint256)
func (privacyGroup *PrivacyGroup) TryPackMAXIO() ([]byte, error) {
	return privacyGroup.abi.Pack("MAX_IO")
}

// UnpackMAXIO is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x16bf3570.
//
// Solidity: function MAX_IO() view returns(uint256)
func (privacyGroup *PrivacyGroup) UnpackMAXIO(data []byte) (*big.Int, error) {
	out, err := privacyGroup.abi.Unpack("MAX_IO", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackMAXMEMBERS is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xea0e35b1.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MAX_MEMBERS() view returns(uint256)
func (privacyGroup *PrivacyGroup) PackMAXMEMBERS() []byte {
	enc, err := privacyGroup.abi.Pack("MAX_MEMBERS")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMAXMEMBERS is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xea0e35b1.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MAX_MEMBERS() view returns(uint256)
func (privacyGroup *PrivacyGroup) TryPackMAXMEMBERS() ([]byte, error) {
	return privacyGroup.abi.Pack("MAX_MEMBERS")
}

// UnpackMAXMEMBERS is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xea0e35b1.
//
// Solidity: function MAX_MEMBERS() view returns(uint256)
func (privacyGroup *PrivacyGroup) UnpackMAXMEMBERS(data []byte) (*big.Int, error) {
	out, err := privacyGroup.abi.Unpack("MAX_MEMBERS", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackConfirm is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1471e966.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function confirm(string group, string txId, string[] spends, (string,string,string)[] creates, (string,bytes)[] endorsements) returns()
func (privacyGroup *PrivacyGroup) PackConfirm(group string, txId string, spends []string, creates []PrivacyGroupState, endorsements []PrivacyGroupEndorsement) []byte {
	enc, err := privacyGroup.abi.Pack("confirm", group, txId, spends, creates, endorsements)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackConfirm is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1471e966.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function confirm(string group, string txId, string[] spends, (string,string,string)[] creates, (string,bytes)[] endorsements) returns()
func (privacyGroup *PrivacyGroup) TryPackConfirm(group string, txId string, spends []string, creates []PrivacyGroupState, endorsements []PrivacyGroupEndorsement) ([]byte, error) {
	return privacyGroup.abi.Pack("confirm", group, txId, spends, creates, endorsements)
}

// PackDeploy is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x13b66b40.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function deploy(string group, (string,address)[] members, uint8 threshold) returns()
func (privacyGroup *PrivacyGroup) PackDeploy(group string, members []PrivacyGroupMember, threshold uint8) []byte {
	enc, err := privacyGroup.abi.Pack("deploy", group, members, threshold)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDeploy is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x13b66b40.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function deploy(string group, (string,address)[] members, uint8 threshold) returns()
func (privacyGroup *PrivacyGroup) TryPackDeploy(group string, members []PrivacyGroupMember, threshold uint8) ([]byte, error) {
	return privacyGroup.abi.Pack("deploy", group, members, threshold)
}

// PackDigestOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9b994a9c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function digestOf(string group, string txId, string[] spends, (string,string,string)[] creates) view returns(bytes32)
func (privacyGroup *PrivacyGroup) PackDigestOf(group string, txId string, spends []string, creates []PrivacyGroupState) []byte {
	enc, err := privacyGroup.abi.Pack("digestOf", group, txId, spends, creates)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDigestOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9b994a9c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function digestOf(string group, string txId, string[] spends, (string,string,string)[] creates) view returns(bytes32)
func (privacyGroup *PrivacyGroup) TryPackDigestOf(group string, txId string, spends []string, creates []PrivacyGroupState) ([]byte, error) {
	return privacyGroup.abi.Pack("digestOf", group, txId, spends, creates)
}

// UnpackDigestOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x9b994a9c.
//
// Solidity: function digestOf(string group, string txId, string[] spends, (string,string,string)[] creates) view returns(bytes32)
func (privacyGroup *PrivacyGroup) UnpackDigestOf(data []byte) ([32]byte, error) {
	out, err := privacyGroup.abi.Unpack("digestOf", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackDomainSeparator is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf698da25.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (privacyGroup *PrivacyGroup) PackDomainSeparator() []byte {
	enc, err := privacyGroup.abi.Pack("domainSeparator")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDomainSeparator is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf698da25.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (privacyGroup *PrivacyGroup) TryPackDomainSeparator() ([]byte, error) {
	return privacyGroup.abi.Pack("domainSeparator")
}

// UnpackDomainSeparator is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xf698da25.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (privacyGroup *PrivacyGroup) UnpackDomainSeparator(data []byte) ([32]byte, error) {
	out, err := privacyGroup.abi.Unpack("domainSeparator", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackGroupOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70706c4d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function groupOf(string group) view returns(address deployer, uint8 threshold, uint8 size)
func (privacyGroup *PrivacyGroup) PackGroupOf(group string) []byte {
	enc, err := privacyGroup.abi.Pack("groupOf", group)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGroupOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70706c4d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function groupOf(string group) view returns(address deployer, uint8 threshold, uint8 size)
func (privacyGroup *PrivacyGroup) TryPackGroupOf(group string) ([]byte, error) {
	return privacyGroup.abi.Pack("groupOf", group)
}

// GroupOfOutput serves as a container for the return parameters of contract
// method GroupOf.
type GroupOfOutput struct {
	Deployer  common.Address
	Threshold uint8
	Size      uint8
}

// UnpackGroupOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x70706c4d.
//
// Solidity: function groupOf(string group) view returns(address deployer, uint8 threshold, uint8 size)
func (privacyGroup *PrivacyGroup) UnpackGroupOf(data []byte) (GroupOfOutput, error) {
	out, err := privacyGroup.abi.Unpack("groupOf", data)
	outstruct := new(GroupOfOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Deployer = *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	outstruct.Threshold = *abi.ConvertType(out[1], new(uint8)).(*uint8)
	outstruct.Size = *abi.ConvertType(out[2], new(uint8)).(*uint8)
	return *outstruct, nil
}

// PackIntentOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf66f9af0.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function intentOf(string group, string txId) view returns(uint256 height)
func (privacyGroup *PrivacyGroup) PackIntentOf(group string, txId string) []byte {
	enc, err := privacyGroup.abi.Pack("intentOf", group, txId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackIntentOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf66f9af0.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function intentOf(string group, string txId) view returns(uint256 height)
func (privacyGroup *PrivacyGroup) TryPackIntentOf(group string, txId string) ([]byte, error) {
	return privacyGroup.abi.Pack("intentOf", group, txId)
}

// UnpackIntentOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xf66f9af0.
//
// Solidity: function intentOf(string group, string txId) view returns(uint256 height)
func (privacyGroup *PrivacyGroup) UnpackIntentOf(data []byte) (*big.Int, error) {
	out, err := privacyGroup.abi.Unpack("intentOf", data)
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
func (privacyGroup *PrivacyGroup) PackIsTrustedForwarder(forwarder common.Address) []byte {
	enc, err := privacyGroup.abi.Pack("isTrustedForwarder", forwarder)
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
func (privacyGroup *PrivacyGroup) TryPackIsTrustedForwarder(forwarder common.Address) ([]byte, error) {
	return privacyGroup.abi.Pack("isTrustedForwarder", forwarder)
}

// UnpackIsTrustedForwarder is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x572b6c05.
//
// Solidity: function isTrustedForwarder(address forwarder) view returns(bool)
func (privacyGroup *PrivacyGroup) UnpackIsTrustedForwarder(data []byte) (bool, error) {
	out, err := privacyGroup.abi.Unpack("isTrustedForwarder", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackMint is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xecbefc9d.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function mint(string group, (string,string,string)[] minted) returns()
func (privacyGroup *PrivacyGroup) PackMint(group string, minted []PrivacyGroupState) []byte {
	enc, err := privacyGroup.abi.Pack("mint", group, minted)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMint is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xecbefc9d.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function mint(string group, (string,string,string)[] minted) returns()
func (privacyGroup *PrivacyGroup) TryPackMint(group string, minted []PrivacyGroupState) ([]byte, error) {
	return privacyGroup.abi.Pack("mint", group, minted)
}

// PackSignerOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5affdaaa.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function signerOf(string group, string member) view returns(address)
func (privacyGroup *PrivacyGroup) PackSignerOf(group string, member string) []byte {
	enc, err := privacyGroup.abi.Pack("signerOf", group, member)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSignerOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5affdaaa.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function signerOf(string group, string member) view returns(address)
func (privacyGroup *PrivacyGroup) TryPackSignerOf(group string, member string) ([]byte, error) {
	return privacyGroup.abi.Pack("signerOf", group, member)
}

// UnpackSignerOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x5affdaaa.
//
// Solidity: function signerOf(string group, string member) view returns(address)
func (privacyGroup *PrivacyGroup) UnpackSignerOf(data []byte) (common.Address, error) {
	out, err := privacyGroup.abi.Unpack("signerOf", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackStateOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x041c0f35.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function stateOf(string group, string id) view returns(uint64 createdAt, bool spent, uint64 spentAt)
func (privacyGroup *PrivacyGroup) PackStateOf(group string, id string) []byte {
	enc, err := privacyGroup.abi.Pack("stateOf", group, id)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackStateOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x041c0f35.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function stateOf(string group, string id) view returns(uint64 createdAt, bool spent, uint64 spentAt)
func (privacyGroup *PrivacyGroup) TryPackStateOf(group string, id string) ([]byte, error) {
	return privacyGroup.abi.Pack("stateOf", group, id)
}

// StateOfOutput serves as a container for the return parameters of contract
// method StateOf.
type StateOfOutput struct {
	CreatedAt uint64
	Spent     bool
	SpentAt   uint64
}

// UnpackStateOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x041c0f35.
//
// Solidity: function stateOf(string group, string id) view returns(uint64 createdAt, bool spent, uint64 spentAt)
func (privacyGroup *PrivacyGroup) UnpackStateOf(data []byte) (StateOfOutput, error) {
	out, err := privacyGroup.abi.Unpack("stateOf", data)
	outstruct := new(StateOfOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.CreatedAt = *abi.ConvertType(out[0], new(uint64)).(*uint64)
	outstruct.Spent = *abi.ConvertType(out[1], new(bool)).(*bool)
	outstruct.SpentAt = *abi.ConvertType(out[2], new(uint64)).(*uint64)
	return *outstruct, nil
}

// PackTrustedRouter is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9acda3bb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function trustedRouter() view returns(address)
func (privacyGroup *PrivacyGroup) PackTrustedRouter() []byte {
	enc, err := privacyGroup.abi.Pack("trustedRouter")
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
func (privacyGroup *PrivacyGroup) TryPackTrustedRouter() ([]byte, error) {
	return privacyGroup.abi.Pack("trustedRouter")
}

// UnpackTrustedRouter is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x9acda3bb.
//
// Solidity: function trustedRouter() view returns(address)
func (privacyGroup *PrivacyGroup) UnpackTrustedRouter(data []byte) (common.Address, error) {
	out, err := privacyGroup.abi.Unpack("trustedRouter", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PrivacyGroupGroupDeployed represents a GroupDeployed event raised by the PrivacyGroup contract.
type PrivacyGroupGroupDeployed struct {
	Group     string
	Deployer  common.Address
	Members   []PrivacyGroupMember
	Threshold uint8
	Raw       *types.Log // Blockchain specific contextual infos
}

const PrivacyGroupGroupDeployedEventName = "GroupDeployed"

// ContractEventName returns the user-defined event name.
func (PrivacyGroupGroupDeployed) ContractEventName() string {
	return PrivacyGroupGroupDeployedEventName
}

// UnpackGroupDeployedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event GroupDeployed(string group, address deployer, (string,address)[] members, uint8 threshold)
func (privacyGroup *PrivacyGroup) UnpackGroupDeployedEvent(log *types.Log) (*PrivacyGroupGroupDeployed, error) {
	event := "GroupDeployed"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != privacyGroup.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PrivacyGroupGroupDeployed)
	if len(log.Data) > 0 {
		if err := privacyGroup.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range privacyGroup.abi.Events[event].Inputs {
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

// PrivacyGroupIntentConfirmed represents a IntentConfirmed event raised by the PrivacyGroup contract.
type PrivacyGroupIntentConfirmed struct {
	Group   string
	TxId    string
	Spends  []string
	Creates []string
	Digest  [32]byte
	Raw     *types.Log // Blockchain specific contextual infos
}

const PrivacyGroupIntentConfirmedEventName = "IntentConfirmed"

// ContractEventName returns the user-defined event name.
func (PrivacyGroupIntentConfirmed) ContractEventName() string {
	return PrivacyGroupIntentConfirmedEventName
}

// UnpackIntentConfirmedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event IntentConfirmed(string group, string txId, string[] spends, string[] creates, bytes32 digest)
func (privacyGroup *PrivacyGroup) UnpackIntentConfirmedEvent(log *types.Log) (*PrivacyGroupIntentConfirmed, error) {
	event := "IntentConfirmed"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != privacyGroup.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PrivacyGroupIntentConfirmed)
	if len(log.Data) > 0 {
		if err := privacyGroup.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range privacyGroup.abi.Events[event].Inputs {
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

// PrivacyGroupStatesMinted represents a StatesMinted event raised by the PrivacyGroup contract.
type PrivacyGroupStatesMinted struct {
	Group  string
	States []string
	Minted []PrivacyGroupState
	Raw    *types.Log // Blockchain specific contextual infos
}

const PrivacyGroupStatesMintedEventName = "StatesMinted"

// ContractEventName returns the user-defined event name.
func (PrivacyGroupStatesMinted) ContractEventName() string {
	return PrivacyGroupStatesMintedEventName
}

// UnpackStatesMintedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event StatesMinted(string group, string[] states, (string,string,string)[] minted)
func (privacyGroup *PrivacyGroup) UnpackStatesMintedEvent(log *types.Log) (*PrivacyGroupStatesMinted, error) {
	event := "StatesMinted"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != privacyGroup.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PrivacyGroupStatesMinted)
	if len(log.Data) > 0 {
		if err := privacyGroup.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range privacyGroup.abi.Events[event].Inputs {
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
func (privacyGroup *PrivacyGroup) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], privacyGroup.abi.Errors["BadID"].ID.Bytes()[:4]) {
		return privacyGroup.UnpackBadIDError(raw[4:])
	}
	if bytes.Equal(raw[:4], privacyGroup.abi.Errors["BadMembers"].ID.Bytes()[:4]) {
		return privacyGroup.UnpackBadMembersError(raw[4:])
	}
	if bytes.Equal(raw[:4], privacyGroup.abi.Errors["BadSignature"].ID.Bytes()[:4]) {
		return privacyGroup.UnpackBadSignatureError(raw[4:])
	}
	if bytes.Equal(raw[:4], privacyGroup.abi.Errors["BadThreshold"].ID.Bytes()[:4]) {
		return privacyGroup.UnpackBadThresholdError(raw[4:])
	}
	if bytes.Equal(raw[:4], privacyGroup.abi.Errors["BelowThreshold"].ID.Bytes()[:4]) {
		return privacyGroup.UnpackBelowThresholdError(raw[4:])
	}
	if bytes.Equal(raw[:4], privacyGroup.abi.Errors["DuplicateSigner"].ID.Bytes()[:4]) {
		return privacyGroup.UnpackDuplicateSignerError(raw[4:])
	}
	if bytes.Equal(raw[:4], privacyGroup.abi.Errors["GroupExists"].ID.Bytes()[:4]) {
		return privacyGroup.UnpackGroupExistsError(raw[4:])
	}
	if bytes.Equal(raw[:4], privacyGroup.abi.Errors["IntentAlreadyConfirmed"].ID.Bytes()[:4]) {
		return privacyGroup.UnpackIntentAlreadyConfirmedError(raw[4:])
	}
	if bytes.Equal(raw[:4], privacyGroup.abi.Errors["NoSuchGroup"].ID.Bytes()[:4]) {
		return privacyGroup.UnpackNoSuchGroupError(raw[4:])
	}
	if bytes.Equal(raw[:4], privacyGroup.abi.Errors["NoSuchState"].ID.Bytes()[:4]) {
		return privacyGroup.UnpackNoSuchStateError(raw[4:])
	}
	if bytes.Equal(raw[:4], privacyGroup.abi.Errors["NotDeployer"].ID.Bytes()[:4]) {
		return privacyGroup.UnpackNotDeployerError(raw[4:])
	}
	if bytes.Equal(raw[:4], privacyGroup.abi.Errors["NotFound"].ID.Bytes()[:4]) {
		return privacyGroup.UnpackNotFoundError(raw[4:])
	}
	if bytes.Equal(raw[:4], privacyGroup.abi.Errors["StateExists"].ID.Bytes()[:4]) {
		return privacyGroup.UnpackStateExistsError(raw[4:])
	}
	if bytes.Equal(raw[:4], privacyGroup.abi.Errors["StateSpent"].ID.Bytes()[:4]) {
		return privacyGroup.UnpackStateSpentError(raw[4:])
	}
	if bytes.Equal(raw[:4], privacyGroup.abi.Errors["TooMany"].ID.Bytes()[:4]) {
		return privacyGroup.UnpackTooManyError(raw[4:])
	}
	if bytes.Equal(raw[:4], privacyGroup.abi.Errors["WrongSigner"].ID.Bytes()[:4]) {
		return privacyGroup.UnpackWrongSignerError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// PrivacyGroupBadID represents a BadID error raised by the PrivacyGroup contract.
type PrivacyGroupBadID struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadID()
func PrivacyGroupBadIDErrorID() common.Hash {
	return common.HexToHash("0x766620dce3704a255847c6a09990f6921cc31e03c8a1fbadbfb19f0595b79754")
}

// UnpackBadIDError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadID()
func (privacyGroup *PrivacyGroup) UnpackBadIDError(raw []byte) (*PrivacyGroupBadID, error) {
	out := new(PrivacyGroupBadID)
	if err := privacyGroup.abi.UnpackIntoInterface(out, "BadID", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PrivacyGroupBadMembers represents a BadMembers error raised by the PrivacyGroup contract.
type PrivacyGroupBadMembers struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadMembers()
func PrivacyGroupBadMembersErrorID() common.Hash {
	return common.HexToHash("0xad359a42e44f36736c6c44b3e02d39ef52d9ecd5bec2b175a9f031ea495385ba")
}

// UnpackBadMembersError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadMembers()
func (privacyGroup *PrivacyGroup) UnpackBadMembersError(raw []byte) (*PrivacyGroupBadMembers, error) {
	out := new(PrivacyGroupBadMembers)
	if err := privacyGroup.abi.UnpackIntoInterface(out, "BadMembers", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PrivacyGroupBadSignature represents a BadSignature error raised by the PrivacyGroup contract.
type PrivacyGroupBadSignature struct {
	Index *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadSignature(uint256 index)
func PrivacyGroupBadSignatureErrorID() common.Hash {
	return common.HexToHash("0xa1c973190ea39240abfd4da3039e0d94cea4d1e689acfee87f4e7dbabee0f307")
}

// UnpackBadSignatureError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadSignature(uint256 index)
func (privacyGroup *PrivacyGroup) UnpackBadSignatureError(raw []byte) (*PrivacyGroupBadSignature, error) {
	out := new(PrivacyGroupBadSignature)
	if err := privacyGroup.abi.UnpackIntoInterface(out, "BadSignature", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PrivacyGroupBadThreshold represents a BadThreshold error raised by the PrivacyGroup contract.
type PrivacyGroupBadThreshold struct {
	Threshold *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadThreshold(uint256 threshold)
func PrivacyGroupBadThresholdErrorID() common.Hash {
	return common.HexToHash("0x78ea4895bffa0df8fc94f2b8557a966533036038b9617e31aa846aad80d0a59d")
}

// UnpackBadThresholdError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadThreshold(uint256 threshold)
func (privacyGroup *PrivacyGroup) UnpackBadThresholdError(raw []byte) (*PrivacyGroupBadThreshold, error) {
	out := new(PrivacyGroupBadThreshold)
	if err := privacyGroup.abi.UnpackIntoInterface(out, "BadThreshold", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PrivacyGroupBelowThreshold represents a BelowThreshold error raised by the PrivacyGroup contract.
type PrivacyGroupBelowThreshold struct {
	Endorsements *big.Int
	Threshold    *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BelowThreshold(uint256 endorsements, uint256 threshold)
func PrivacyGroupBelowThresholdErrorID() common.Hash {
	return common.HexToHash("0x8b05c814296d98f4f07b3bc12cb7a432374a44716d3cdbb2055265f66227d36f")
}

// UnpackBelowThresholdError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BelowThreshold(uint256 endorsements, uint256 threshold)
func (privacyGroup *PrivacyGroup) UnpackBelowThresholdError(raw []byte) (*PrivacyGroupBelowThreshold, error) {
	out := new(PrivacyGroupBelowThreshold)
	if err := privacyGroup.abi.UnpackIntoInterface(out, "BelowThreshold", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PrivacyGroupDuplicateSigner represents a DuplicateSigner error raised by the PrivacyGroup contract.
type PrivacyGroupDuplicateSigner struct {
	Index *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error DuplicateSigner(uint256 index)
func PrivacyGroupDuplicateSignerErrorID() common.Hash {
	return common.HexToHash("0x9f4f72e17c4233761e1cc424eba2c0be2e8c3566e01898d969fb12d6043c9aaf")
}

// UnpackDuplicateSignerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error DuplicateSigner(uint256 index)
func (privacyGroup *PrivacyGroup) UnpackDuplicateSignerError(raw []byte) (*PrivacyGroupDuplicateSigner, error) {
	out := new(PrivacyGroupDuplicateSigner)
	if err := privacyGroup.abi.UnpackIntoInterface(out, "DuplicateSigner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PrivacyGroupGroupExists represents a GroupExists error raised by the PrivacyGroup contract.
type PrivacyGroupGroupExists struct {
	Group string
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error GroupExists(string group)
func PrivacyGroupGroupExistsErrorID() common.Hash {
	return common.HexToHash("0xf8bce74e34a86af8a6c9d315f938afe338c7c1806b32d12d3dc70c403d18dda0")
}

// UnpackGroupExistsError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error GroupExists(string group)
func (privacyGroup *PrivacyGroup) UnpackGroupExistsError(raw []byte) (*PrivacyGroupGroupExists, error) {
	out := new(PrivacyGroupGroupExists)
	if err := privacyGroup.abi.UnpackIntoInterface(out, "GroupExists", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PrivacyGroupIntentAlreadyConfirmed represents a IntentAlreadyConfirmed error raised by the PrivacyGroup contract.
type PrivacyGroupIntentAlreadyConfirmed struct {
	TxId string
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error IntentAlreadyConfirmed(string txId)
func PrivacyGroupIntentAlreadyConfirmedErrorID() common.Hash {
	return common.HexToHash("0xbbe7d685217ad1c4e92b09aefe38e4443133a5b22f95b9f44259d0a7a1361acc")
}

// UnpackIntentAlreadyConfirmedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error IntentAlreadyConfirmed(string txId)
func (privacyGroup *PrivacyGroup) UnpackIntentAlreadyConfirmedError(raw []byte) (*PrivacyGroupIntentAlreadyConfirmed, error) {
	out := new(PrivacyGroupIntentAlreadyConfirmed)
	if err := privacyGroup.abi.UnpackIntoInterface(out, "IntentAlreadyConfirmed", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PrivacyGroupNoSuchGroup represents a NoSuchGroup error raised by the PrivacyGroup contract.
type PrivacyGroupNoSuchGroup struct {
	Group string
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NoSuchGroup(string group)
func PrivacyGroupNoSuchGroupErrorID() common.Hash {
	return common.HexToHash("0x0f2e6bbf687aabc7fcc805d9b3756f07e1030db7fa4417adef21609f9333ae1a")
}

// UnpackNoSuchGroupError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NoSuchGroup(string group)
func (privacyGroup *PrivacyGroup) UnpackNoSuchGroupError(raw []byte) (*PrivacyGroupNoSuchGroup, error) {
	out := new(PrivacyGroupNoSuchGroup)
	if err := privacyGroup.abi.UnpackIntoInterface(out, "NoSuchGroup", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PrivacyGroupNoSuchState represents a NoSuchState error raised by the PrivacyGroup contract.
type PrivacyGroupNoSuchState struct {
	Id string
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NoSuchState(string id)
func PrivacyGroupNoSuchStateErrorID() common.Hash {
	return common.HexToHash("0xec1c61148d0c5300800ed3b924d8804ed6f4bfb9bae6200d78ee6280ec93e986")
}

// UnpackNoSuchStateError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NoSuchState(string id)
func (privacyGroup *PrivacyGroup) UnpackNoSuchStateError(raw []byte) (*PrivacyGroupNoSuchState, error) {
	out := new(PrivacyGroupNoSuchState)
	if err := privacyGroup.abi.UnpackIntoInterface(out, "NoSuchState", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PrivacyGroupNotDeployer represents a NotDeployer error raised by the PrivacyGroup contract.
type PrivacyGroupNotDeployer struct {
	Caller common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotDeployer(address caller)
func PrivacyGroupNotDeployerErrorID() common.Hash {
	return common.HexToHash("0x0c8cc036c9c98ca91a606f42bb4fd73acf8431b681f0e19ddaaaf88693e5c4a5")
}

// UnpackNotDeployerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotDeployer(address caller)
func (privacyGroup *PrivacyGroup) UnpackNotDeployerError(raw []byte) (*PrivacyGroupNotDeployer, error) {
	out := new(PrivacyGroupNotDeployer)
	if err := privacyGroup.abi.UnpackIntoInterface(out, "NotDeployer", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PrivacyGroupNotFound represents a NotFound error raised by the PrivacyGroup contract.
type PrivacyGroupNotFound struct {
	What string
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotFound(string what)
func PrivacyGroupNotFoundErrorID() common.Hash {
	return common.HexToHash("0x607be5dc64b1cc48d786f50883cd9879650017ea06baaa551546973e3f10503f")
}

// UnpackNotFoundError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotFound(string what)
func (privacyGroup *PrivacyGroup) UnpackNotFoundError(raw []byte) (*PrivacyGroupNotFound, error) {
	out := new(PrivacyGroupNotFound)
	if err := privacyGroup.abi.UnpackIntoInterface(out, "NotFound", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PrivacyGroupStateExists represents a StateExists error raised by the PrivacyGroup contract.
type PrivacyGroupStateExists struct {
	Id string
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error StateExists(string id)
func PrivacyGroupStateExistsErrorID() common.Hash {
	return common.HexToHash("0xc76d39afa2e5dc0ac41b7927d9cbc5852d407300ef3626a9eda597a12a9aedaf")
}

// UnpackStateExistsError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error StateExists(string id)
func (privacyGroup *PrivacyGroup) UnpackStateExistsError(raw []byte) (*PrivacyGroupStateExists, error) {
	out := new(PrivacyGroupStateExists)
	if err := privacyGroup.abi.UnpackIntoInterface(out, "StateExists", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PrivacyGroupStateSpent represents a StateSpent error raised by the PrivacyGroup contract.
type PrivacyGroupStateSpent struct {
	Id string
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error StateSpent(string id)
func PrivacyGroupStateSpentErrorID() common.Hash {
	return common.HexToHash("0x0fa3894c227d698a31a252de9c915fa3462eb566ff85684f6c7bb7e2a65b558d")
}

// UnpackStateSpentError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error StateSpent(string id)
func (privacyGroup *PrivacyGroup) UnpackStateSpentError(raw []byte) (*PrivacyGroupStateSpent, error) {
	out := new(PrivacyGroupStateSpent)
	if err := privacyGroup.abi.UnpackIntoInterface(out, "StateSpent", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PrivacyGroupTooMany represents a TooMany error raised by the PrivacyGroup contract.
type PrivacyGroupTooMany struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error TooMany()
func PrivacyGroupTooManyErrorID() common.Hash {
	return common.HexToHash("0xd65ac61eaed3332b3b71dfc563e4a76b8b5917c5e456ad30c9e7669c992d1de3")
}

// UnpackTooManyError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error TooMany()
func (privacyGroup *PrivacyGroup) UnpackTooManyError(raw []byte) (*PrivacyGroupTooMany, error) {
	out := new(PrivacyGroupTooMany)
	if err := privacyGroup.abi.UnpackIntoInterface(out, "TooMany", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PrivacyGroupWrongSigner represents a WrongSigner error raised by the PrivacyGroup contract.
type PrivacyGroupWrongSigner struct {
	Index *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error WrongSigner(uint256 index)
func PrivacyGroupWrongSignerErrorID() common.Hash {
	return common.HexToHash("0x2cdd26824ed16eaa9a58c1070bf4cf10df6ed1a9cef42371243bc7b0e0444a6b")
}

// UnpackWrongSignerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error WrongSigner(uint256 index)
func (privacyGroup *PrivacyGroup) UnpackWrongSignerError(raw []byte) (*PrivacyGroupWrongSigner, error) {
	out := new(PrivacyGroupWrongSigner)
	if err := privacyGroup.abi.UnpackIntoInterface(out, "WrongSigner", raw); err != nil {
		return nil, err
	}
	return out, nil
}
