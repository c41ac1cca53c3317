package node

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/ordolabs/ordo/internal/smm"
	"net/http"
	"os"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/leader"
	"github.com/ordolabs/ordo/internal/processor"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
)

// Config is the node's configuration file (YAML). Flags override it.
type Config struct {
	// Listen is the HTTP API address. Defaults to 127.0.0.1:7070.
	Listen string `yaml:"listen"`
	// Data is the data directory (store, keystore, in-process chain).
	// Defaults to ./ordo-data.
	Data string `yaml:"data"`
	// Chain is a remote devchain's URL; empty runs a devchain in-process,
	// served under the node's address. Defaults to "".
	Chain string `yaml:"chain"`
	// EVM runs the node on an EVM chain instead (its URLs set; Chain then
	// empty). Defaults to none.
	EVM EVMConfig `yaml:"evm"`
	// DevMode is the one switch for the node's openness. With it, access is
	// open: every caller, with or without a token, is the principal "dev"
	// with role admin (Principals are not consulted). And the
	// in-process devchain's routes that change the chain (POST /v1/tx,
	// GET/PUT /v1/faults, POST /v1/faucet, GET /v1/dev/accounts, POST
	// /v1/dev/mine) are served on the node's address; without it the node
	// serves only the chain's reads (head, blocks, subscribe, tx status,
	// accounts, minfee, events, call) and answers the others 403 read_only.
	// The node logs a warning at start when it is on. It says nothing about
	// the chain's own dev mode (see DevSenders). Defaults to false (`ordo
	// demo` turns it on).
	DevMode bool `yaml:"devMode"`
	// DevSenders creates this many funded sender accounts in dev mode (keys
	// kept in Data/keys.json, funded by the devchain faucet). Defaults to 8
	// when no senders are configured, else 0. Given as 0 (in the file, by
	// --dev-senders 0, or in Go by SetDevSenders(0)) it means none, never
	// the default; a node with none and no senders is refused.
	DevSenders int `yaml:"devSenders"`
	// devSendersSet is true when DevSenders was given, so that 0 means
	// zero rather than the default.
	devSendersSet bool
	// Senders are senders with a key file (hex ed25519 seed) or a remote
	// worker URL that holds the key. Defaults to none.
	Senders []SenderFile `yaml:"senders"`
	// AllowedTypes are the transaction types intake accepts. Defaults to the
	// seed's five types (built on devchain's zkapp contract); on an EVM
	// chain, to none: intents there are contract calls through the router
	// (type call, which evm.contracts scopes).
	AllowedTypes []string `yaml:"allowedTypes"`
	// RetryDelay is how long a transaction in RETRY waits (DELAY) before its
	// next dispatch. Defaults to 5s.
	RetryDelay Duration `yaml:"retryDelay"`
	// MaxRetries is how many retries a transaction gets before it is FAILED.
	// Defaults to 5.
	MaxRetries int `yaml:"maxRetries"`
	// Types overrides RetryDelay and MaxRetries per transaction type; every
	// key must be one of AllowedTypes. Defaults to none (every type uses the
	// node's RetryDelay and MaxRetries).
	Types map[string]TypeConfig `yaml:"types"`
	// Fees sets the fee of each attempt. Defaults to the defaults of its
	// fields (initial 1000, +10% and at least 100 per retry, at most 1000000).
	Fees FeeConfig `yaml:"fees"`
	// InclusionTimeoutBlocks is how many blocks an attempt may wait before it
	// is retried. Defaults to 5.
	InclusionTimeoutBlocks uint64 `yaml:"inclusionTimeoutBlocks"`
	// Confirmations is how many blocks must hold a transaction before it is
	// DONE (its own block counts). Defaults to 0: follow the chain, which
	// declares on its heads the deepest reorg d it may make, and wait d+1
	// (1 on a chain that never reorgs). A value of d or less is warned about
	// at start: a reorg the chain may make could then undo DONE.
	Confirmations uint64 `yaml:"confirmations"`
	// WorkerTimeout bounds a remote worker call. Defaults to 10s.
	WorkerTimeout Duration `yaml:"workerTimeout"`
	// MaxDataDepth is how deeply arrays and objects may nest in an intent's
	// data ({} and [] are depth 1); deeper data is refused at intake with a
	// 422 naming the field data. From 1 to 10000. Defaults to 64.
	MaxDataDepth int `yaml:"maxDataDepth"`
	// API configures the HTTP API. Defaults to the defaults of its fields.
	API APIConfig `yaml:"api"`
	// Devchain configures the in-process devchain; it is ignored when Chain
	// is set. Defaults to the defaults of its fields (1s blocks, seed 1, no
	// faults).
	Devchain DevchainConfig `yaml:"devchain"`

	// Health configures GET /healthz. Defaults to the defaults of its
	// fields (chainTimeout 30s).
	Health HealthConfig `yaml:"health"`

	// Principals are the callers the API knows, each with a bearer token
	// (or its SHA-256) and roles: admin, submit, read, or any role an
	// engine checks. Outside dev mode `ordo serve` refuses to start without
	// one (`ordo token` makes a token). The node keeps only the tokens'
	// hashes. Defaults to none.
	Principals []auth.PrincipalConfig `yaml:"principals"`
	// OpenReads lets anyone call the API's reads (GET routes, /metrics)
	// without a token. Defaults to false: reads need the role read.
	OpenReads bool `yaml:"openReads"`
	// IntakeAccess restricts which callers may submit which types.
	// Defaults to the defaults of its fields.
	IntakeAccess IntakeConfig `yaml:"intake"`
	// Processor tunes the processor engine (seed 002). Defaults to the
	// defaults of its fields.
	Processor ProcessorConfig `yaml:"processor"`
	// Leader runs the leader engine (seed 001) when it names accounts.
	// Defaults to off.
	Leader LeaderConfig `yaml:"leader"`
	// Sequencer tunes the sequencer (seed 000) beyond the fields above.
	// Defaults to the defaults of its fields.
	Sequencer SequencerConfig `yaml:"sequencer"`
	// Distseq makes the node a member of privacy-group committees (seed
	// 003) when it names an identity key. Defaults to off.
	Distseq DistseqConfig `yaml:"distseq"`
	// Replication keeps each queue taken in through the public intake on
	// a replica set of nodes (seed 004, issue 12): a primary and
	// secondaries recorded on chain, the state machine manager's jobs
	// keeping them in sync and healthy. It needs the node's identity and
	// the nodes registry (distseq.key, distseq.cert, distseq.registry).
	// Defaults to off (each queue on this node alone).
	Replication smm.Config `yaml:"replication"`
	// Store is where the engines keep their durable state: the embedded
	// SQLite database in Data (the default) or PostgreSQL (store.url).
	// Defaults to the embedded SQLite database.
	Store StoreConfig `yaml:"store"`
	// Egress is the policy for URLs the node calls on others' say-so
	// (callback and tool URLs). Defaults to public addresses only, and
	// loopback in dev mode (config_egress.go).
	Egress EgressConfig `yaml:"egress"`
	// ShutdownGrace bounds a graceful stop (SIGTERM, SIGINT): how long the
	// node lets the requests and the transactions in flight finish before
	// it stops its engines. Defaults to 10s.
	ShutdownGrace Duration `yaml:"shutdownGrace"`
	// Retention prunes DONE and FAILED records older than retention.after
	// (RetentionConfig). Defaults to off: every record is kept.
	Retention RetentionConfig `yaml:"retention"`
	// Dashboard tunes the history of the node's figures (GET
	// /v1/stats/history) and the chain explorer's links (GET
	// /v1/session). Defaults to the defaults of its fields.
	Dashboard DashboardConfig `yaml:"dashboard"`
	// PTX tunes the ptx_ JSON-RPC API: answer budgets, who spends for
	// which owner. Defaults to the defaults of its fields.
	PTX PTXConfig `yaml:"ptx"`
}

// SequencerConfig tunes the sequencer.
type SequencerConfig struct {
	// Pipelines is the in-flight-per-queue policy: a queue whose name
	// starts with a rule's prefix (the longest matching prefix wins) may
	// have up to its inFlight transactions in flight, sent in FIFO order on
	// one sender with consecutive nonces, so that they can land in one
	// block (nonce-ordered pipelining). inFlight is from 1 to 1024; two rules
	// may not share a prefix. Defaults to none: every queue has one
	// transaction in flight, the seed's "one transaction per block, per
	// zkApp".
	Pipelines []PipelineConfig `yaml:"pipelines"`
}

// PipelineConfig is one rule of SequencerConfig.Pipelines.
type PipelineConfig struct {
	// Prefix selects the queues: every queue whose name starts with it
	// ("" matches every queue). Required key, no default.
	Prefix string `yaml:"prefix"`
	// InFlight is how many transactions of such a queue may be in flight,
	// from 1 to 1024. Required: there is no default, and 0 is refused.
	InFlight int `yaml:"inFlight"`
}

// pipelines returns the policy as the sequencer takes it.
func (c SequencerConfig) pipelines() []sequencer.Pipeline {
	var rules []sequencer.Pipeline
	for _, p := range c.Pipelines {
		rules = append(rules, sequencer.Pipeline{Prefix: p.Prefix, InFlight: p.InFlight})
	}
	return rules
}

// LeaderConfig configures the leader engine. It runs when Accounts is not
// empty. Zero fields take their defaults.
type LeaderConfig struct {
	// Accounts are sender accounts (with keys in the node's keystore) that
	// hold the workflow's leader caps: each cap is a channel, whose results
	// its account sends (the sequencer pins the channel's queue
	// leader/<i> to it and keeps the account for it). The first signs the
	// tool invocations. Defaults to none (no leader).
	Accounts []string `yaml:"accounts"`
	// Workflow and Registry name the contracts. Default to "workflow" and
	// "registry".
	Workflow string `yaml:"workflow"`
	Registry string `yaml:"registry"`
	// ToolTimeout bounds one tool invocation. Defaults to 10s.
	ToolTimeout Duration `yaml:"toolTimeout"`
	// Capacity is the high-integrity channel's run queue. Defaults to 256.
	Capacity int `yaml:"capacity"`
	// MaxActive is how many tools run at once. Defaults to 32.
	MaxActive int `yaml:"maxActive"`
	// MaxRetries is how many retriable failures a request survives.
	// Defaults to 5.
	MaxRetries int `yaml:"maxRetries"`
	// RetryEvery is the retrier's period. Defaults to 1s.
	RetryEvery Duration `yaml:"retryEvery"`
	// SweepAfter returns to Queued an Active request whose execution no
	// longer runs. Defaults to 30s.
	SweepAfter Duration `yaml:"sweepAfter"`
	// StaleAfter disposes of an Active request (Dead, with a failure
	// result). Defaults to 10m.
	StaleAfter Duration `yaml:"staleAfter"`
	// BlockFor blocks a channel after its result transaction failed on
	// chain. Defaults to 24h.
	BlockFor Duration `yaml:"blockFor"`
}

// core is the leader core's configuration, with its channels.
func (l LeaderConfig) core(accounts []string) leader.CoreConfig {
	return leader.CoreConfig{Capacity: l.Capacity, MaxActive: l.MaxActive, MaxRetries: l.MaxRetries, RetryEvery: time.Duration(l.RetryEvery),
		SweepAfter: time.Duration(l.SweepAfter), StaleAfter: time.Duration(l.StaleAfter), BlockFor: time.Duration(l.BlockFor), Accounts: accounts}
}

// ProcessorConfig tunes the processor engine. Zero fields take their
// defaults.
type ProcessorConfig struct {
	// OpenTick lets anyone tick a processor (the seed's permissionless
	// tick); false makes a tick need the processor's owner (or an admin).
	// Defaults to true.
	OpenTick *bool `yaml:"openTick"`
	// CheckEvery is how often an execution the sequencer has not finished
	// is asked about again. Defaults to 30s.
	CheckEvery Duration `yaml:"checkEvery"`
	// MaxDeliveries is how many callbacks of one processor are delivered at
	// once. Defaults to 16.
	MaxDeliveries int `yaml:"maxDeliveries"`
	// BackoffMin and BackoffMax bound the wait between two deliveries of a
	// callback, doubling from one to the other. Default to 1s and 5m.
	BackoffMin Duration `yaml:"backoffMin"`
	BackoffMax Duration `yaml:"backoffMax"`
	// MaxQueued is the most batches one processor holds queued. Defaults
	// to 100000.
	MaxQueued int `yaml:"maxQueued"`
	// DeliveryTimeout bounds one callback delivery. Defaults to 10s.
	DeliveryTimeout Duration `yaml:"deliveryTimeout"`
}

// core is the processor core's configuration.
func (p ProcessorConfig) core() processor.CoreConfig {
	return processor.CoreConfig{CheckEvery: time.Duration(p.CheckEvery), MaxDeliveries: p.MaxDeliveries,
		BackoffMin: time.Duration(p.BackoffMin), BackoffMax: time.Duration(p.BackoffMax), MaxQueued: p.MaxQueued}
}

// openTick is OpenTick with its default.
func (p ProcessorConfig) openTick() bool { return p.OpenTick == nil || *p.OpenTick }

// IntakeConfig is who may submit what through the API.
type IntakeConfig struct {
	// TypeRoles maps a transaction type to the roles that may submit it
	// through the API (admin holds every role; an empty list allows no
	// caller); types not listed are open to every principal with submit.
	// The generic contract-call type ("call"), which engines submit inside
	// the node, is [] (no caller) unless listed here. Defaults to {call: []}.
	TypeRoles map[string][]auth.Role `yaml:"typeRoles"`
}

// Auth is the access configuration of the node's API: its principals,
// openReads, and open access in dev mode.
func (c Config) Auth() auth.Config {
	return auth.Config{Principals: c.Principals, OpenReads: c.OpenReads, Open: c.DevMode}
}

// ErrNoPrincipals is CheckAccess's error: a node outside dev mode with no
// principal could answer nobody.
var ErrNoPrincipals = errors.New("no principal is configured and dev mode is off, so every request would be refused")

// CheckAccess refuses (ErrNoPrincipals, with how to add a principal) a
// configuration outside dev mode without any principal. `ordo serve` checks
// it before it starts.
func (c Config) CheckAccess() error {
	if c.DevMode || len(c.Principals) > 0 {
		return nil
	}
	return fmt.Errorf(`%w. Add a principal to the node's config (--config FILE):

  principals:
    - principal: alice
      tokenSHA256: <the hash ordo token prints>
      roles: [submit, read]                       # admin implies every role

'ordo token --token-file FILE' makes a random token, prints these lines with its
hash and writes the token to FILE, for the client, which sends it as --token
TOKEN or ORDO_TOKEN (Authorization: Bearer TOKEN). Or, on a developer's
machine only, start with --dev-mode: access is then open, every caller an admin`, ErrNoPrincipals)
}

// HealthConfig configures GET /healthz.
type HealthConfig struct {
	// ChainTimeout is how long the chain may go without answering a call
	// before GET /healthz answers 503 chain_unreachable (the node logs a
	// warning at its first unanswered call, whatever this is). Defaults to
	// 30s.
	ChainTimeout Duration `yaml:"chainTimeout"`
}

// DefaultChainTimeout is HealthConfig.ChainTimeout's default.
const DefaultChainTimeout = 30 * time.Second

// setDefaults fills the health fields' defaults.
func (h *HealthConfig) setDefaults() {
	if h.ChainTimeout == 0 {
		h.ChainTimeout = Duration(DefaultChainTimeout)
	}
}

// Check reports a health field out of range, named as in the YAML file.
func (h HealthConfig) Check() error {
	if h.ChainTimeout < 0 {
		return fmt.Errorf("health.chainTimeout: must not be negative, got %s", time.Duration(h.ChainTimeout))
	}
	return nil
}

// APIConfig configures the node's HTTP API.
type APIConfig struct {
	// CORSOrigins are the browser origins (scheme://host[:port], such as
	// https://app.example.com) whose pages may call the API: their CORS
	// preflights are answered and their responses carry
	// Access-Control-Allow-Origin. "*" is not accepted. Defaults to none: no
	// response carries a CORS header.
	CORSOrigins []string `yaml:"corsOrigins"`
	// TLS makes the API serve HTTPS with a certificate and key (PEM files).
	// Defaults to none: plain HTTP.
	TLS APITLSConfig `yaml:"tls"`
	// DevModeOnPublicAddress lets a node in dev mode listen on an address
	// other than loopback (flag --dev-mode-on-public-address): without
	// it such a node refuses to start. Defaults to false.
	DevModeOnPublicAddress bool `yaml:"devModeOnPublicAddress"`
	// IntakeLimit limits each principal's intake rate. Defaults to off.
	IntakeLimit IntakeLimitConfig `yaml:"intakeLimit"`
}

// SetDevSenders sets DevSenders to n as given, so that 0 means no dev
// senders rather than the default.
func (c *Config) SetDevSenders(n int) {
	c.DevSenders, c.devSendersSet = n, true
}

// Intake returns the sequencer's intake rules this configuration sets.
func (c Config) Intake() sequencer.IntakeRules {
	return sequencer.IntakeRules{MaxDataDepth: c.MaxDataDepth}
}

// WrapHandler returns h, the node's API, as the configuration serves it:
// with CORS for api.corsOrigins (none: h as it is).
func (c Config) WrapHandler(h http.Handler) (http.Handler, error) {
	h, err := api.CORS(h, c.API.CORSOrigins)
	if err != nil {
		return nil, fmt.Errorf("api.corsOrigins: %w", err)
	}
	return h, nil
}

// SenderFile is a configured sender: exactly one of KeyFile and Worker is
// set.
type SenderFile struct {
	// KeyFile is a file holding the hex of a 32-byte ed25519 seed; the node
	// signs this sender's transactions itself. Defaults to "".
	KeyFile string `yaml:"keyFile"`
	// Worker is the URL of a remote worker that holds this sender's key and
	// dispatches its transactions; Address is then required. Defaults to "".
	Worker string `yaml:"worker"`
	// Address is the worker's account address (64 lowercase hex digits).
	// Defaults to "" (required with Worker).
	Address string `yaml:"address"`
}

// TypeConfig overrides retries for one type.
type TypeConfig struct {
	// MaxRetries is how many retries a transaction of this type gets before
	// it is FAILED. Defaults to the node's MaxRetries.
	MaxRetries int `yaml:"maxRetries"`
	// RetryDelay is how long a transaction of this type waits before its
	// next dispatch. Defaults to the node's RetryDelay.
	RetryDelay Duration `yaml:"retryDelay"`
	// Worker is the URL of the type's remote worker: it builds the type's
	// chain transactions (POST {worker}/build), which the node's keystore
	// senders sign, and gets its hooks; a type with a worker needs no
	// built-in dispatcher. Defaults to "" (the built-in dispatcher).
	Worker string `yaml:"worker"`
}

// FeeConfig sets attempt fees.
type FeeConfig struct {
	// The fees are in the chain's units: devchain's fee, an EVM chain's
	// fee cap per gas in wei (the defaults there are those of
	// EVMConfig's setDefaults: initial 1 gwei, minStep 1 wei, max 1000
	// gwei).
	//
	// Initial is the first attempt's fee (raised to the chain's minimum).
	// Defaults to 1000.
	Initial uint64 `yaml:"initial"`
	// BumpPercent is the rise per retry, in percent of the previous fee. At
	// least 10 (the chain's replacement rule). Defaults to 10.
	BumpPercent uint64 `yaml:"bumpPercent"`
	// MinStep is the smallest rise per retry. Defaults to 100.
	MinStep uint64 `yaml:"minStep"`
	// Max caps every fee; it must be at least Initial. Defaults to 1000000.
	Max uint64 `yaml:"max"`
}

// Duration is a time.Duration written as "5s" in YAML.
type Duration time.Duration

// UnmarshalYAML parses a duration string.
func (d *Duration) UnmarshalYAML(v *yaml.Node) error {
	p, err := time.ParseDuration(v.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", v.Line, err)
	}
	*d = Duration(p)
	return nil
}

// LoadConfig reads a YAML config file; unknown fields are errors.
func LoadConfig(path string) (Config, error) {
	var c Config
	b, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("config %s: %w", path, err)
	}
	// Was devSenders given? Then 0 means zero, not the default.
	var given struct {
		DevSenders *int `yaml:"devSenders"`
	}
	if err := yaml.Unmarshal(b, &given); err == nil && given.DevSenders != nil {
		c.devSendersSet = true
	}
	return c, nil
}

// SetDefaults fills every unset field with its default.
func (c *Config) SetDefaults() {
	if c.Listen == "" {
		c.Listen = "127.0.0.1:7070"
	}
	if c.Data == "" {
		c.Data = "ordo-data"
	}
	if c.DevSenders == 0 && !c.devSendersSet && len(c.Senders) == 0 {
		c.DevSenders = 8
	}
	if c.MaxDataDepth == 0 {
		c.MaxDataDepth = sequencer.DefaultMaxDataDepth
	}
	if len(c.AllowedTypes) == 0 && !c.EVM.enabled() {
		c.AllowedTypes = dispatch.BuiltinTypes()
	}
	if c.RetryDelay == 0 {
		c.RetryDelay = Duration(sequencer.DefaultRetryDelay)
	}
	if c.MaxRetries == 0 {
		c.MaxRetries = sequencer.DefaultMaxRetries
	}
	if c.InclusionTimeoutBlocks == 0 {
		c.InclusionTimeoutBlocks = sequencer.DefaultInclusionTimeout
	}
	if c.WorkerTimeout == 0 {
		c.WorkerTimeout = Duration(dispatch.DefaultWorkerTimeout)
	}
	if c.Devchain.BlockTime == 0 {
		c.Devchain.BlockTime = Duration(time.Second)
	}
	if c.EVM.enabled() {
		c.EVM.setDefaults(&c.Fees)
		if _, ok := c.IntakeAccess.TypeRoles[api.CallType]; !ok {
			// On an EVM chain a call reaches only the contracts of
			// evm.contracts, through the router: callers with the
			// submit role may send it.
			tr := map[string][]auth.Role{api.CallType: {auth.RoleSubmit}}
			for k, v := range c.IntakeAccess.TypeRoles {
				tr[k] = v
			}
			c.IntakeAccess.TypeRoles = tr
		}
	}
	c.Fees.setDefaults()
	c.Health.setDefaults()
	if _, ok := c.IntakeAccess.TypeRoles[api.CallType]; !ok {
		tr := map[string][]auth.Role{}
		for k, v := range c.IntakeAccess.TypeRoles {
			tr[k] = v
		}
		for k, v := range api.DefaultTypeRoles() {
			tr[k] = v
		}
		c.IntakeAccess.TypeRoles = tr
	}
	if _, ok := c.IntakeAccess.TypeRoles[processor.SubmitType]; !ok {
		// The processor's executions: never from the API, whatever the
		// config says of "call".
		tr := map[string][]auth.Role{processor.SubmitType: {}}
		for k, v := range c.IntakeAccess.TypeRoles {
			tr[k] = v
		}
		c.IntakeAccess.TypeRoles = tr
	}
}

// setDefaults fills the fee fields with the sequencer's defaults.
func (f *FeeConfig) setDefaults() {
	p := sequencer.FeePolicy(*f)
	p.SetDefaults()
	*f = FeeConfig(p)
}

// Set parses a duration string (for flags).
func (d *Duration) Set(s string) error {
	p, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(p)
	return nil
}
