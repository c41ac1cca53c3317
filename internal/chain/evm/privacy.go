package evm

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
)

// PrivacyGroup's EIP-712 domain (contracts/PrivacyGroup.sol): the digest
// a committee member signs to endorse an intent.
const (
	PrivacyDomainName    = "OrdoPrivacyGroup"
	PrivacyDomainVersion = "1"
)

var (
	privacyDomainType = crypto.Keccak256Hash([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"))
	privacyStateType  = crypto.Keccak256Hash([]byte("State(string id,string owner,string data)"))
	privacyIntentType = crypto.Keccak256Hash([]byte("Intent(string group,string txId,string[] spends,State[] creates)State(string id,string owner,string data)"))
)

// PrivacyState is a state an intent creates, as PrivacyGroup hashes it:
// its id, owner and data (compact JSON, as a string).
type PrivacyState struct {
	ID    string
	Owner string
	Data  string
}

// PrivacyDigest is PrivacyGroup.digestOf(group, txID, spends, creates) of
// the contract at contract on chain chainID: EIP-712's
// keccak256("\x19\x01" ‖ domainSeparator ‖ hashStruct(Intent)). It is
// pure; a test checks it against the contract's own.
func PrivacyDigest(chainID *big.Int, contract common.Address, group, txID string, spends []string, creates []PrivacyState) [32]byte {
	word := func(b []byte) []byte { return common.LeftPadBytes(b, 32) }
	str := func(s string) []byte { return crypto.Keccak256([]byte(s)) }
	var sp, cr []byte
	for _, s := range spends {
		sp = append(sp, str(s)...)
	}
	for _, c := range creates {
		cr = append(cr, crypto.Keccak256(privacyStateType[:], str(c.ID), str(c.Owner), str(c.Data))...)
	}
	domain := crypto.Keccak256(privacyDomainType[:], str(PrivacyDomainName), str(PrivacyDomainVersion),
		word(math.U256Bytes(new(big.Int).Set(chainID))), word(contract[:]))
	intent := crypto.Keccak256(privacyIntentType[:], str(group), str(txID), crypto.Keccak256(sp), crypto.Keccak256(cr))
	var d [32]byte
	copy(d[:], crypto.Keccak256([]byte("\x19\x01"), domain, intent))
	return d
}

// SignPrivacy is an endorsement of digest with key: 65 bytes [R‖S‖V] with
// V 27 or 28, as ecrecover takes it (crypto.Sign's s is always low).
func SignPrivacy(key *ecdsa.PrivateKey, digest [32]byte) ([]byte, error) {
	sig, err := crypto.Sign(digest[:], key)
	if err != nil {
		return nil, fmt.Errorf("evm: endorsing: %w", err)
	}
	sig[64] += 27
	return sig, nil
}

// ErrBadEndorsement is a signature that does not recover to an address.
var ErrBadEndorsement = errors.New("evm: not a valid endorsement")

// RecoverPrivacy is the address whose key signed digest (sig as
// SignPrivacy makes it), with the contract's checks: 65 bytes, V 27 or 28
// (0 or 1 taken too), a low s.
func RecoverPrivacy(digest [32]byte, sig []byte) (common.Address, error) {
	if len(sig) != 65 {
		return common.Address{}, ErrBadEndorsement
	}
	rs := append([]byte{}, sig...)
	if rs[64] >= 27 {
		rs[64] -= 27
	}
	if rs[64] > 1 || !crypto.ValidateSignatureValues(rs[64], new(big.Int).SetBytes(rs[:32]), new(big.Int).SetBytes(rs[32:64]), true) {
		return common.Address{}, ErrBadEndorsement
	}
	pub, err := crypto.SigToPub(digest[:], rs)
	if err != nil {
		return common.Address{}, fmt.Errorf("%w: %w", ErrBadEndorsement, err)
	}
	return crypto.PubkeyToAddress(*pub), nil
}
