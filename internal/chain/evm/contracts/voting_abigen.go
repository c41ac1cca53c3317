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

// VotingMetaData contains all meta data concerning the Voting contract.
var VotingMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"router\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"account\",\"type\":\"string\"}],\"name\":\"AccountExists\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"account\",\"type\":\"string\"}],\"name\":\"NotFound\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"string\",\"name\":\"account\",\"type\":\"string\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"voter\",\"type\":\"string\"},{\"indexed\":false,\"internalType\":\"bool\",\"name\":\"vote\",\"type\":\"bool\"}],\"name\":\"ClaimVoteSent\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"string\",\"name\":\"account\",\"type\":\"string\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"creator\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"title\",\"type\":\"string\"}],\"name\":\"ClaimVotingAccountCreated\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"account\",\"type\":\"string\"}],\"name\":\"claim\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"creator\",\"type\":\"address\"},{\"internalType\":\"string\",\"name\":\"title\",\"type\":\"string\"},{\"internalType\":\"uint64\",\"name\":\"yes\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"no\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"account\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"title\",\"type\":\"string\"}],\"name\":\"createClaimVotingAccount\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"forwarder\",\"type\":\"address\"}],\"name\":\"isTrustedForwarder\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"string\",\"name\":\"account\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"voter\",\"type\":\"string\"},{\"internalType\":\"bool\",\"name\":\"vote\",\"type\":\"bool\"}],\"name\":\"sendClaimVote\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"trustedRouter\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"}],\"name\":\"votesBy\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "Voting",
	Bin: "0x60a0604052348015600e575f5ffd5b50604051610b1e380380610b1e833981016040819052602b91603b565b6001600160a01b03166080526066565b5f60208284031215604a575f5ffd5b81516001600160a01b0381168114605f575f5ffd5b9392505050565b608051610a9461008a5f395f818160890152818160d301526104fd0152610a945ff3fe608060405234801561000f575f5ffd5b5060043610610060575f3560e01c80635393728b14610064578063572b6c05146100795780639acda3bb146100ce5780639b5cb9a91461010d578063d6a1832f1461013a578063f3fe12c91461014d575b5f5ffd5b6100776100723660046105a2565b610170565b005b6100b9610087366004610627565b7f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0390811691161490565b60405190151581526020015b60405180910390f35b6100f57f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b0390911681526020016100c5565b61012c61011b366004610627565b60016020525f908152604090205481565b6040519081526020016100c5565b610077610148366004610654565b6102e7565b61016061015b3660046106be565b6103c8565b6040516100c594939291906106fc565b5f5f5f8787604051610183929190610760565b604080519182900390912082526020820192909252015f2080549091506001600160a01b03166101d357858560405163181ef97760e21b81526004016101ca929190610797565b60405180910390fd5b8115610221578054600160a01b90046001600160401b03168160146101f7836107c6565b91906101000a8154816001600160401b0302191690836001600160401b0316021790555050610261565b6001810180546001600160401b0316905f61023b836107c6565b91906101000a8154816001600160401b0302191690836001600160401b03160217905550505b5f61026a6104f1565b6001600160a01b0381165f908152600160205260408120805492935090610290836107f0565b9190505550806001600160a01b03167fb2b0c3e6177f9bc0bd388eb7ffd5162537802727a4db0ac48f40a775a0cf8e8588888888886040516102d6959493929190610808565b60405180910390a250505050505050565b5f5f5f86866040516102fa929190610760565b604080519182900390912082526020820192909252015f2080549091506001600160a01b031615610342578484604051638699b83360e01b81526004016101ca929190610797565b61034a6104f1565b81546001600160a01b0319166001600160a01b0391909116178155600281016103748385836108e6565b5080546040516001600160a01b03909116907f35196a00dfbbda0fbaf828ae7addbfe694f21d30b77039cc600459490b6d9295906103b99088908890889088906109a0565b60405180910390a25050505050565b5f60605f5f5f5f5f88886040516103e0929190610760565b604080519182900390912082526020820192909252015f2080549091506001600160a01b031661042757868660405163181ef97760e21b81526004016101ca929190610797565b805460018201546002830180546001600160a01b0384169391926001600160401b03600160a01b9093048316921690839061046190610857565b80601f016020809104026020016040519081016040528092919081815260200182805461048d90610857565b80156104d85780601f106104af576101008083540402835291602001916104d8565b820191905f5260205f20905b8154815290600101906020018083116104bb57829003601f168201915b5050505050925094509450945094505092959194509250565b5f336001600160a01b037f00000000000000000000000000000000000000000000000000000000000000001614801561052b575060143610155b15610559575f3661053d6014826109d1565b6105489282906109ea565b61055191610a11565b60601c905090565b503390565b5f5f83601f84011261056e575f5ffd5b5081356001600160401b03811115610584575f5ffd5b60208301915083602082850101111561059b575f5ffd5b9250929050565b5f5f5f5f5f606086880312156105b6575f5ffd5b85356001600160401b038111156105cb575f5ffd5b6105d78882890161055e565b90965094505060208601356001600160401b038111156105f5575f5ffd5b6106018882890161055e565b90945092505060408601358015158114610619575f5ffd5b809150509295509295909350565b5f60208284031215610637575f5ffd5b81356001600160a01b038116811461064d575f5ffd5b9392505050565b5f5f5f5f60408587031215610667575f5ffd5b84356001600160401b0381111561067c575f5ffd5b6106888782880161055e565b90955093505060208501356001600160401b038111156106a6575f5ffd5b6106b28782880161055e565b95989497509550505050565b5f5f602083850312156106cf575f5ffd5b82356001600160401b038111156106e4575f5ffd5b6106f08582860161055e565b90969095509350505050565b60018060a01b0385168152608060208201525f8451806080840152806020870160a085015e5f60a0828501015260a0601f19601f8301168401019150506001600160401b03841660408301526001600160401b038316606083015295945050505050565b818382375f9101908152919050565b81835281816020850137505f828201602090810191909152601f909101601f19169091010190565b602081525f6107aa60208301848661076f565b949350505050565b634e487b7160e01b5f52601160045260245ffd5b5f6001600160401b0382166001600160401b0381036107e7576107e76107b2565b60010192915050565b5f60018201610801576108016107b2565b5060010190565b606081525f61081b60608301878961076f565b828103602084015261082e81868861076f565b91505082151560408301529695505050505050565b634e487b7160e01b5f52604160045260245ffd5b600181811c9082168061086b57607f821691505b60208210810361088957634e487b7160e01b5f52602260045260245ffd5b50919050565b601f8211156108e157828211156108e157805f5260205f20601f840160051c60208510156108ba57505f5b90810190601f840160051c035f5b818110156108dd575f838201556001016108c8565b5050505b505050565b6001600160401b038311156108fd576108fd610843565b6109118361090b8354610857565b8361088f565b5f601f841160018114610942575f851561092b5750838201355b5f19600387901b1c1916600186901b178355610999565b5f83815260208120601f198716915b828110156109715786850135825560209485019460019092019101610951565b508682101561098d575f1960f88860031b161c19848701351681555b505060018560011b0183555b5050505050565b604081525f6109b360408301868861076f565b82810360208401526109c681858761076f565b979650505050505050565b818103818111156109e4576109e46107b2565b92915050565b5f5f858511156109f8575f5ffd5b83861115610a04575f5ffd5b5050820193919092039150565b80356bffffffffffffffffffffffff198116906014841015610a57576bffffffffffffffffffffffff196bffffffffffffffffffffffff198560140360031b1b82161691505b509291505056fea2646970667358221220b555a84dcff52cbb558517861cd2a1c9ba65c0c5a937da28abaa70dc0f9af06264736f6c63430008250033",
}

// Voting is an auto generated Go binding around an Ethereum contract.
type Voting struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *Voting) GetABI() abi.ABI {
	return c.abi
}

// NewVoting creates a new instance of Voting.
func NewVoting() *Voting {
	parsed, err := VotingMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &Voting{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *Voting) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address router) returns()
func (voting *Voting) PackConstructor(router common.Address) []byte {
	enc, err := voting.abi.Pack("", router)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackClaim is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf3fe12c9.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function claim(string account) view returns(address creator, string title, uint64 yes, uint64 no)
func (voting *Voting) PackClaim(account string) []byte {
	enc, err := voting.abi.Pack("claim", account)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackClaim is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf3fe12c9.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function claim(string account) view returns(address creator, string title, uint64 yes, uint64 no)
func (voting *Voting) TryPackClaim(account string) ([]byte, error) {
	return voting.abi.Pack("claim", account)
}

// ClaimOutput serves as a container for the return parameters of contract
// method Claim.
type ClaimOutput struct {
	Creator common.Address
	Title   string
	Yes     uint64
	No      uint64
}

// UnpackClaim is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xf3fe12c9.
//
// Solidity: function claim(string account) view returns(address creator, string title, uint64 yes, uint64 no)
func (voting *Voting) UnpackClaim(data []byte) (ClaimOutput, error) {
	out, err := voting.abi.Unpack("claim", data)
	outstruct := new(ClaimOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Creator = *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	outstruct.Title = *abi.ConvertType(out[1], new(string)).(*string)
	outstruct.Yes = *abi.ConvertType(out[2], new(uint64)).(*uint64)
	outstruct.No = *abi.ConvertType(out[3], new(uint64)).(*uint64)
	return *outstruct, nil
}

// PackCreateClaimVotingAccount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd6a1832f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function createClaimVotingAccount(string account, string title) returns()
func (voting *Voting) PackCreateClaimVotingAccount(account string, title string) []byte {
	enc, err := voting.abi.Pack("createClaimVotingAccount", account, title)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCreateClaimVotingAccount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd6a1832f.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function createClaimVotingAccount(string account, string title) returns()
func (voting *Voting) TryPackCreateClaimVotingAccount(account string, title string) ([]byte, error) {
	return voting.abi.Pack("createClaimVotingAccount", account, title)
}

// PackIsTrustedForwarder is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x572b6c05.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function isTrustedForwarder(address forwarder) view returns(bool)
func (voting *Voting) PackIsTrustedForwarder(forwarder common.Address) []byte {
	enc, err := voting.abi.Pack("isTrustedForwarder", forwarder)
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
func (voting *Voting) TryPackIsTrustedForwarder(forwarder common.Address) ([]byte, error) {
	return voting.abi.Pack("isTrustedForwarder", forwarder)
}

// UnpackIsTrustedForwarder is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x572b6c05.
//
// Solidity: function isTrustedForwarder(address forwarder) view returns(bool)
func (voting *Voting) UnpackIsTrustedForwarder(data []byte) (bool, error) {
	out, err := voting.abi.Unpack("isTrustedForwarder", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackSendClaimVote is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5393728b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function sendClaimVote(string account, string voter, bool vote) returns()
func (voting *Voting) PackSendClaimVote(account string, voter string, vote bool) []byte {
	enc, err := voting.abi.Pack("sendClaimVote", account, voter, vote)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSendClaimVote is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5393728b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function sendClaimVote(string account, string voter, bool vote) returns()
func (voting *Voting) TryPackSendClaimVote(account string, voter string, vote bool) ([]byte, error) {
	return voting.abi.Pack("sendClaimVote", account, voter, vote)
}

// PackTrustedRouter is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9acda3bb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function trustedRouter() view returns(address)
func (voting *Voting) PackTrustedRouter() []byte {
	enc, err := voting.abi.Pack("trustedRouter")
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
func (voting *Voting) TryPackTrustedRouter() ([]byte, error) {
	return voting.abi.Pack("trustedRouter")
}

// UnpackTrustedRouter is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x9acda3bb.
//
// Solidity: function trustedRouter() view returns(address)
func (voting *Voting) UnpackTrustedRouter(data []byte) (common.Address, error) {
	out, err := voting.abi.Unpack("trustedRouter", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackVotesBy is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9b5cb9a9.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function votesBy(address sender) view returns(uint256)
func (voting *Voting) PackVotesBy(sender common.Address) []byte {
	enc, err := voting.abi.Pack("votesBy", sender)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackVotesBy is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9b5cb9a9.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function votesBy(address sender) view returns(uint256)
func (voting *Voting) TryPackVotesBy(sender common.Address) ([]byte, error) {
	return voting.abi.Pack("votesBy", sender)
}

// UnpackVotesBy is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x9b5cb9a9.
//
// Solidity: function votesBy(address sender) view returns(uint256)
func (voting *Voting) UnpackVotesBy(data []byte) (*big.Int, error) {
	out, err := voting.abi.Unpack("votesBy", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// VotingClaimVoteSent represents a ClaimVoteSent event raised by the Voting contract.
type VotingClaimVoteSent struct {
	Account string
	Sender  common.Address
	Voter   string
	Vote    bool
	Raw     *types.Log // Blockchain specific contextual infos
}

const VotingClaimVoteSentEventName = "ClaimVoteSent"

// ContractEventName returns the user-defined event name.
func (VotingClaimVoteSent) ContractEventName() string {
	return VotingClaimVoteSentEventName
}

// UnpackClaimVoteSentEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ClaimVoteSent(string account, address indexed sender, string voter, bool vote)
func (voting *Voting) UnpackClaimVoteSentEvent(log *types.Log) (*VotingClaimVoteSent, error) {
	event := "ClaimVoteSent"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != voting.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(VotingClaimVoteSent)
	if len(log.Data) > 0 {
		if err := voting.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range voting.abi.Events[event].Inputs {
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

// VotingClaimVotingAccountCreated represents a ClaimVotingAccountCreated event raised by the Voting contract.
type VotingClaimVotingAccountCreated struct {
	Account string
	Creator common.Address
	Title   string
	Raw     *types.Log // Blockchain specific contextual infos
}

const VotingClaimVotingAccountCreatedEventName = "ClaimVotingAccountCreated"

// ContractEventName returns the user-defined event name.
func (VotingClaimVotingAccountCreated) ContractEventName() string {
	return VotingClaimVotingAccountCreatedEventName
}

// UnpackClaimVotingAccountCreatedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event ClaimVotingAccountCreated(string account, address indexed creator, string title)
func (voting *Voting) UnpackClaimVotingAccountCreatedEvent(log *types.Log) (*VotingClaimVotingAccountCreated, error) {
	event := "ClaimVotingAccountCreated"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != voting.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(VotingClaimVotingAccountCreated)
	if len(log.Data) > 0 {
		if err := voting.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range voting.abi.Events[event].Inputs {
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
func (voting *Voting) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], voting.abi.Errors["AccountExists"].ID.Bytes()[:4]) {
		return voting.UnpackAccountExistsError(raw[4:])
	}
	if bytes.Equal(raw[:4], voting.abi.Errors["NotFound"].ID.Bytes()[:4]) {
		return voting.UnpackNotFoundError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// VotingAccountExists represents a AccountExists error raised by the Voting contract.
type VotingAccountExists struct {
	Account string
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error AccountExists(string account)
func VotingAccountExistsErrorID() common.Hash {
	return common.HexToHash("0x8699b833ba9d47d6259dd51f9f53bf3790ecc81a3b2829c07a90f58b186794ea")
}

// UnpackAccountExistsError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error AccountExists(string account)
func (voting *Voting) UnpackAccountExistsError(raw []byte) (*VotingAccountExists, error) {
	out := new(VotingAccountExists)
	if err := voting.abi.UnpackIntoInterface(out, "AccountExists", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// VotingNotFound represents a NotFound error raised by the Voting contract.
type VotingNotFound struct {
	Account string
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotFound(string account)
func VotingNotFoundErrorID() common.Hash {
	return common.HexToHash("0x607be5dc64b1cc48d786f50883cd9879650017ea06baaa551546973e3f10503f")
}

// UnpackNotFoundError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotFound(string account)
func (voting *Voting) UnpackNotFoundError(raw []byte) (*VotingNotFound, error) {
	out := new(VotingNotFound)
	if err := voting.abi.UnpackIntoInterface(out, "NotFound", raw); err != nil {
		return nil, err
	}
	return out, nil
}
