// Command evm is the EVM line of ordo's peer benchmark (issue 31): the
// same N transactions sent through ordo and through OP's transaction
// manager (github.com/ethereum-optimism/optimism/op-service/txmgr, its
// SimpleTxManager) to the same simulated chain, with the same signing
// keys, and one line with both contenders' figures. Run it from the
// repository:
//
//	go -C bench/peers/evm run . --txs 2000 --keys 8
//
// FireFly's evmconnect, the peer issue 31 names, is refused by the module
// proxy here (403 Forbidden), as are FireFly's transaction manager,
// Chainlink's and Paladin's; OP's txmgr is the closest Go transaction
// manager that builds. It builds only against OP's go-ethereum fork
// (op-geth), so this is a module of its own with that replace, and it
// imports none of ordo's packages (built against upstream go-ethereum): it
// drives ordo through its binary (built from the repository, or --ordo).
//
// What one run does:
//
//   - ordo's run: `ordo evmdev` on free loopback ports (--block-time,
//     K+1 dev accounts), then `ordo serve` on it in dev mode with the dev
//     accounts 1..K as keystore senders and a pipeline of --in-flight
//     transactions per queue. The plan is the voting flow on --queues
//     queues (default K), one claim each: the claims are opened first
//     (create_claim_voting_account, waited DONE, not measured), then the N
//     votes (send_claim_vote) are taken over HTTP in batches, the head
//     read as each batch is answered. When all are DONE, each intent's
//     included transaction is read from the chain.
//   - OP txmgr's run: a fresh `ordo evmdev` with the same flags, so the
//     same dev keys and contract addresses (checked on the router). It sends
//     the transactions ordo's run put on chain (their to, input and gas
//     limit) through K SimpleTxManagers, one per dev key 1..K, queue q's
//     through manager q mod K: first the creates (Send, not measured), then
//     the N votes (SendAsync, which assigns nonces in call order), the
//     head read at each send. The router takes them again on a fresh chain:
//     a duplicate would show as IntentDuplicate and count as failed.
//   - The figures, the same for both: transactions per second from the
//     first intake or send to when the last receipt's block was first seen;
//     confirm latency p50 and p99 in blocks (receipt block − head at intake
//     or send); fees over the base fee (Σ tip × gas used / Σ base fee × gas
//     used); failed (a router outcome other than IntentApplied) and
//     reverted (status 0) counts.
//
// Invariants: both contenders send the same transactions with the same
// keys to chains with the same settings; a run with a failed or reverted
// transaction is an error, not a figure; the benchmark measures and
// reports, it never asserts a floor.
package main
