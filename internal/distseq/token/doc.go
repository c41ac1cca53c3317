// Package token is the domain ordo's distributed sequencer ships for seed
// 003 ("Pente-like" domains where any member of a group may spend group
// states): a balance sheet of coins held by a privacy group on the devchain
// privacygroup contract. A coin is a state {id, owner, data {"amount": n}};
// any member may spend any coin, so concurrent intents contend for coins,
// and the coordinator's assembly queue keeps them apart.
//
// An intent is {"to": owner, "amount": n}: assembly spends coins from the
// coordinator's domain context, oldest first (the outputs of transactions
// not yet confirmed come last: speculative chaining), until their sum
// reaches n, and creates a coin of n for "to" and, when there is change, a
// coin of the rest for the sender. Not enough coins is distseq.ErrNotReady:
// the sender parks the intent.
//
// Invariants: assembly is a pure function of its inputs; it never spends
// a coin twice or creates an id twice; a created coin's id names its
// content ("<txId>.<n>.<hash of owner and amount>"), so two assemblies of
// one transaction that create different coins never share an id, and a
// later transaction that spent one of them can never spend the other (the
// base ledger checks ids, not amounts);
// the amounts spent equal the amounts created; the digest is the
// privacygroup contract's PrivacyDigest, so the endorsements it signs are
// the ones the contract checks.
package token
