package sequencer

import (
	"crypto/ed25519"

	"github.com/ordolabs/ordo/internal/chain"
)

// signTx puts tx's args in canonical form, signs it and returns its hash,
// hashing once.
func signTx(tx *chain.Tx, key ed25519.PrivateKey) chain.Hash {
	tx.Args = chain.CanonicalArgs(tx.Args)
	h := tx.HashCanonical()
	tx.SignHash(key, h)
	return h
}
