// Package evmdev is ordo's development EVM chain and its contract deployer
// (issue 25): go-ethereum's simulated backend (ethclient/simulated) served
// over loopback JSON-RPC (HTTP and WebSocket) as its own process, so that a
// node can crash without its chain, as `ordo devchain` is for devchain.
//
// Start runs the chain: it funds Config.Accounts dev accounts in the genesis
// alloc, deploys OrdoRouter (owner: dev account 0; every dev account a
// submitter), Voting and Library (the processor's test target), Workflow
// and ToolRegistry (the leader's: dev account 0 the workflow's admin, every
// other dev account granted one leader cap), mines them, then seals a block
// every
// Config.BlockTime on its clock. Deploy puts the same contracts on any EVM
// chain over JSON-RPC (`ordo evm deploy`); ConfigYAML prints the node's
// `evm:` config section for either.
//
// Invariants:
//   - The dev keys are DevKey(i) = the secp256k1 key whose scalar is
//     keccak256("ordo/evm/dev/<i>"). They are public: any chain that funds
//     them can be drained by anyone. They are for development only.
//   - The JSON-RPC endpoints listen on loopback only unless
//     Config.AllowPublic is set.
//   - Blocks are sealed only by the timer (and once for the deployments at
//     start), never by an incoming transaction; Close stops the timer before
//     it closes the chain.
//   - The chain forks are those Ethereum runs today, through Osaka: the
//     simulated backend's default also turns on the unreleased Amsterdam and
//     Bogota rules, whose gas metering defeats the router's out-of-gas guard
//     (docs/evm-contracts.md).
//   - The chain lives in memory: a restart starts a new chain at block 0.
//     The contracts get the same addresses again (same deployer, same
//     nonces).
package evmdev
