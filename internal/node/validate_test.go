package node

import (
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/sequencer"
)

const workerAddr = "3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29"

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		edit func(c *Config)
		want []string // substrings of the error, in order; none: valid
	}{
		{"zero config", func(*Config) {}, nil},
		{"explicit defaults", func(c *Config) { c.SetDefaults() }, nil},
		{"a full valid config", func(c *Config) {
			c.Senders = []SenderFile{{KeyFile: "k.hex"}, {Worker: "http://w", Address: workerAddr}}
			c.Types = map[string]TypeConfig{"SEND_CLAIM_VOTE": {MaxRetries: 10, RetryDelay: Duration(time.Second)}}
			c.Fees = FeeConfig{Initial: 2000, BumpPercent: 25, MinStep: 1, Max: 2000}
			c.Devchain.Faults = FaultConfig{RejectProb: 1, DropProb: 0.5, RevertProb: 0, ReorgEvery: 10, ReorgDepth: 3,
				FeeSpike: FeeSpikeConfig{Factor: 5, Blocks: 3}, Stall: Duration(time.Minute)}
		}, nil},

		{"an EVM chain", func(c *Config) {
			c.EVM = EVMConfig{URLs: []string{"ws://127.0.0.1:8546", "http://127.0.0.1:8545"}, ChainID: 1337, Router: "0x" + strings.Repeat("ab", 20),
				Contracts: map[string]EVMContract{"voting": {Address: "0x" + strings.Repeat("cd", 20), ABI: "Voting"}}}
		}, nil},
		{"a leader on an EVM chain", func(c *Config) {
			c.EVM = EVMConfig{URLs: []string{"http://127.0.0.1:8545"}, Router: "0x" + strings.Repeat("ab", 20)}
			c.Leader.Accounts = []string{"0x" + strings.Repeat("cd", 20)}
		}, nil},
		{"a leader's EVM account not in lowercase, and a devchain one", func(c *Config) {
			c.EVM = EVMConfig{URLs: []string{"http://127.0.0.1:8545"}, Router: "0x" + strings.Repeat("ab", 20)}
			c.Leader.Accounts = []string{"0x" + strings.Repeat("CD", 20), strings.Repeat("cd", 32)}
		}, []string{`leader.accounts[0]: "0xCDCD`, `leader.accounts[1]: "cdcd`}},
		{"an EVM chain and a devchain", func(c *Config) {
			c.Chain = "http://127.0.0.1:8545"
			c.EVM = EVMConfig{URLs: []string{"http://127.0.0.1:8546"}, Router: "0x" + strings.Repeat("ab", 20)}
		}, []string{"chain: names a devchain and evm.urls an EVM chain"}},
		{"EVM fields without URLs", func(c *Config) { c.EVM.Router = "0x" + strings.Repeat("ab", 20) },
			[]string{"evm.urls: is empty, but evm.router or evm.contracts is set"}},
		{"a bad EVM section", func(c *Config) {
			c.EVM = EVMConfig{URLs: []string{"ftp://x", "http://127.0.0.1:1"}, Router: "0x12", TipPercent: 101, GasMarginPercent: 50,
				Contracts: map[string]EVMContract{"multicall": {Address: "nope"}}}
		}, []string{"evm.urls[0]: \"ftp://x\" is not an http(s) or ws(s) URL", "evm.router: \"0x12\" is not an address",
			"evm.contracts.multicall: a contract's name", "evm.contracts.multicall.address: \"nope\" is not an address",
			"evm.contracts.multicall.abi: is required", "evm.tipPercent: must be at most 100, got 101",
			"evm.gasMarginPercent: must be at least 100 (the estimate itself), got 50"}},

		{"pipelines", func(c *Config) {
			c.Sequencer.Pipelines = []PipelineConfig{{Prefix: "ds/", InFlight: 8}, {Prefix: "ds/hot/", InFlight: 64}, {Prefix: "", InFlight: 1}}
		}, nil},
		{"pipeline inFlight out of range", func(c *Config) {
			c.Sequencer.Pipelines = []PipelineConfig{{Prefix: "a", InFlight: 0}, {Prefix: "b", InFlight: 1025}}
		}, []string{"sequencer.pipelines[0].inFlight: must be from 1 to 1024, got 0", "sequencer.pipelines[1].inFlight: must be from 1 to 1024, got 1025"}},
		{"pipeline prefix twice", func(c *Config) {
			c.Sequencer.Pipelines = []PipelineConfig{{Prefix: "a", InFlight: 2}, {Prefix: "a", InFlight: 3}}
		}, []string{`sequencer.pipelines[1].prefix: "a" is also the prefix of sequencer.pipelines[0]`}},

		{"bump under the replacement rule", func(c *Config) { c.Fees.BumpPercent = 1 },
			[]string{"fees.bumpPercent: must be at least 10 (the chain's replacement rule), got 1"}},
		{"max under initial", func(c *Config) { c.Fees.Initial, c.Fees.Max = 5000, 4000 },
			[]string{"fees.max: must be at least fees.initial (5000), got 4000"}},
		{"max under the default initial", func(c *Config) { c.Fees.Max = 500 },
			[]string{"fees.max: must be at least fees.initial (1000), got 500"}},
		{"initial over the default max", func(c *Config) { c.Fees.Initial = 2_000_000 },
			[]string{"fees.max: must be at least fees.initial (2000000), got 1000000"}},
		{"negative maxRetries", func(c *Config) { c.MaxRetries = -1 },
			[]string{"maxRetries: must not be negative, got -1"}},
		{"negative type maxRetries", func(c *Config) { c.Types = map[string]TypeConfig{"SEND_CLAIM_VOTE": {MaxRetries: -2}} },
			[]string{"types.SEND_CLAIM_VOTE.maxRetries: must not be negative, got -2"}},
		{"negative retryDelay", func(c *Config) { c.RetryDelay = Duration(-time.Second) },
			[]string{"retryDelay: must not be negative, got -1s"}},
		{"negative type retryDelay", func(c *Config) {
			c.Types = map[string]TypeConfig{"SEND_CLAIM_VOTE": {RetryDelay: Duration(-time.Second)}}
		}, []string{"types.SEND_CLAIM_VOTE.retryDelay: must not be negative"}},
		{"negative workerTimeout", func(c *Config) { c.WorkerTimeout = Duration(-time.Millisecond) },
			[]string{"workerTimeout: must not be negative"}},
		{"negative blockTime", func(c *Config) { c.Devchain.BlockTime = Duration(-time.Second) },
			[]string{"devchain.blockTime: must not be negative"}},
		{"negative stall", func(c *Config) { c.Devchain.Faults.Stall = Duration(-time.Second) },
			[]string{"devchain.faults.stall: must not be negative"}},
		{"negative devSenders", func(c *Config) { c.DevSenders = -1 },
			[]string{"devSenders: must not be negative"}},
		{"negative maxBlockTxs", func(c *Config) { c.Devchain.MaxBlockTxs = -1 },
			[]string{"devchain.maxBlockTxs: must not be negative"}},
		{"type not allowed", func(c *Config) { c.Types = map[string]TypeConfig{"MINT_NFT": {MaxRetries: 1}} },
			[]string{"types.MINT_NFT: not an allowed type"}},
		{"type not in a narrowed allowedTypes", func(c *Config) {
			c.AllowedTypes = []string{"SEND_CLAIM_VOTE"}
			c.Types = map[string]TypeConfig{"RECEIVE_VOTES_BATCH": {}}
		}, []string{"types.RECEIVE_VOTES_BATCH: not an allowed type"}},
		{"sender with nothing", func(c *Config) { c.Senders = []SenderFile{{KeyFile: "k"}, {Address: workerAddr}} },
			[]string{"senders[1]: needs a keyFile or a worker"}},
		{"sender with both", func(c *Config) { c.Senders = []SenderFile{{KeyFile: "k", Worker: "http://w", Address: workerAddr}} },
			[]string{"senders[0]: has both a keyFile and a worker"}},
		{"worker without address", func(c *Config) { c.Senders = []SenderFile{{Worker: "http://w"}} },
			[]string{"senders[0].address: required with a worker"}},
		{"worker with a bad address", func(c *Config) { c.Senders = []SenderFile{{Worker: "http://w", Address: "xyz"}} },
			[]string{"senders[0].address: "}},
		{"rejectProb over 1", func(c *Config) { c.Devchain.Faults.RejectProb = 1.5 },
			[]string{"devchain.faults.rejectProb: must be between 0 and 1, got 1.5"}},
		{"dropProb negative", func(c *Config) { c.Devchain.Faults.DropProb = -0.1 },
			[]string{"devchain.faults.dropProb: must be between 0 and 1, got -0.1"}},
		{"revertProb NaN", func(c *Config) { c.Devchain.Faults.RevertProb = math.NaN() },
			[]string{"devchain.faults.revertProb: must be between 0 and 1, got NaN"}},
		{"fee spike without a factor", func(c *Config) { c.Devchain.Faults.FeeSpike.Blocks = 3 },
			[]string{"devchain.faults.feeSpike.factor: must be at least 1"}},
		{"fee spike too large", func(c *Config) { c.Devchain.Faults.FeeSpike = FeeSpikeConfig{Factor: 2_000_000, Blocks: 1} },
			[]string{"devchain.faults: feeSpike needs a factor"}},
		{"reorg too deep", func(c *Config) { c.Devchain.Faults.ReorgDepth = devchain.MaxReorgDepth + 1 },
			[]string{"devchain.faults: reorgDepth must be between 1 and"}},
		{"stall too long", func(c *Config) { c.Devchain.Faults.Stall = Duration(25 * time.Hour) },
			[]string{"devchain.faults: stall must be between 0s and 24h"}},
		{"chain http", func(c *Config) { c.Chain = "http://127.0.0.1:7545" }, nil},
		{"chain https with a path", func(c *Config) { c.Chain = "https://chain.example.com/devchain/" }, nil},
		{"chain ipv6", func(c *Config) { c.Chain = "http://[::1]:7545" }, nil},
		{"chain without a scheme", func(c *Config) { c.Chain = "127.0.0.1:7545" },
			[]string{"chain: must be an http(s) URL such as http://127.0.0.1:7545, got \"127.0.0.1:7545\""}},
		{"chain host:port", func(c *Config) { c.Chain = "localhost:7545" }, []string{"chain: must be an http(s) URL"}},
		{"chain another scheme", func(c *Config) { c.Chain = "ws://127.0.0.1:7545" }, []string{`chain: must be an http(s) URL such as http://127.0.0.1:7545, got "ws://127.0.0.1:7545" (scheme "ws")`}},
		{"chain without a host", func(c *Config) { c.Chain = "http:///v1" }, []string{"chain: must be an http(s) URL with a host"}},
		{"chain with only a port", func(c *Config) { c.Chain = "http://:7545" }, []string{"chain: must be an http(s) URL with a host"}},
		{"chain with a query", func(c *Config) { c.Chain = "http://h:1/?a=b" }, []string{"chain: must be a base URL, without a query or fragment"}},
		{"chain with a fragment", func(c *Config) { c.Chain = "http://h:1/#x" }, []string{"chain: must be a base URL"}},
		{"chain unparsable", func(c *Config) { c.Chain = "http://h:port" }, []string{"chain: must be an http(s) URL"}},
		{"chain with a space", func(c *Config) { c.Chain = " http://h" }, []string{"chain: must be an http(s) URL"}},
		{"chain oversized", func(c *Config) { c.Chain = "ftp://" + strings.Repeat("h", 10000) }, []string{`chain: must be an http(s) URL such as http://127.0.0.1:7545, got "ftp://hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh"… (10006 bytes)`}},

		{"devSenders 0 with senders", func(c *Config) { c.SetDevSenders(0); c.Senders = []SenderFile{{KeyFile: "k"}} }, nil},
		{"devSenders 0 alone", func(c *Config) { c.SetDevSenders(0) },
			[]string{"devSenders: is 0 and no senders are configured, so the node would have no sender"}},
		{"devSenders unset is the default", func(c *Config) { c.DevSenders = 0 }, nil},

		{"maxDataDepth 1", func(c *Config) { c.MaxDataDepth = 1 }, nil},
		{"maxDataDepth at its limit", func(c *Config) { c.MaxDataDepth = 10000 }, nil},
		{"maxDataDepth negative", func(c *Config) { c.MaxDataDepth = -1 }, []string{"maxDataDepth: must be from 1 to 10000, got -1"}},
		{"maxDataDepth over its limit", func(c *Config) { c.MaxDataDepth = 10001 }, []string{"maxDataDepth: must be from 1 to 10000, got 10001"}},

		{"corsOrigins", func(c *Config) { c.API.CORSOrigins = []string{"https://app.example.com", "http://localhost:3000"} }, nil},
		{"corsOrigins wildcard", func(c *Config) { c.API.CORSOrigins = []string{"https://a.example", "*"} },
			[]string{`api.corsOrigins[1]: "*" is not accepted`}},
		{"corsOrigins with a path", func(c *Config) { c.API.CORSOrigins = []string{"https://a.example/app"} },
			[]string{`api.corsOrigins[0]: "https://a.example/app" is not an origin: it must be scheme://host[:port]`}},
		{"corsOrigins without a scheme", func(c *Config) { c.API.CORSOrigins = []string{"a.example"} },
			[]string{`api.corsOrigins[0]: "a.example" is not an origin: the scheme must be http or https`}},

		{"every problem is reported", func(c *Config) {
			c.MaxRetries = -1
			c.Fees.BumpPercent = 5
			c.Devchain.Faults.DropProb = 2
		}, []string{"maxRetries:", "fees.bumpPercent:", "devchain.faults.dropProb:"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c Config
			tc.edit(&c)
			before := c.Fees
			err := c.Validate()
			if c.Fees != before {
				t.Fatalf("Validate changed the config: fees %+v, was %+v", c.Fees, before)
			}
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("valid config refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("invalid config accepted; want %q", tc.want)
			}
			msg := err.Error()
			rest := msg
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("error %q lacks %q (in order %q)", msg, w, tc.want)
				}
				rest = rest[i+len(w):]
			}
			if got, want := len(strings.Split(msg, "\n")), len(tc.want); got != want {
				t.Fatalf("error %q has %d problems, want %d", msg, got, want)
			}
		})
	}
}

// A bad worker address is reported wrapping the chain's own error.
func TestValidateWrapsAddressError(t *testing.T) {
	c := Config{Senders: []SenderFile{{Worker: "http://w", Address: "xyz"}}}
	err := c.Validate()
	if err == nil || chain.ValidateAddress("xyz") == nil {
		t.Fatalf("bad address accepted: %v", err)
	}
	if !strings.Contains(err.Error(), chain.ValidateAddress("xyz").Error()) {
		t.Fatalf("error %q does not carry the address error", err)
	}
}

// The example config is valid.
func TestExampleConfigValidates(t *testing.T) {
	c, err := LoadConfig("../../docs/ordo.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
}

// The YAML fault knobs reach the devchain's fault update.
func TestFaultConfigUpdate(t *testing.T) {
	p := t.TempDir() + "/c.yaml"
	const y = "devchain:\n  faults:\n    rejectProb: 0.25\n    reorgEvery: 7\n    reorgDepth: 2\n    feeSpike: {factor: 4, blocks: 9}\n    stall: 30s\n"
	if err := writeFile(p, y); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	u := c.Devchain.Faults.Update()
	if err := u.Validate(); err != nil {
		t.Fatal(err)
	}
	if *u.RejectProb != 0.25 || *u.ReorgEvery != 7 || u.ReorgDepth == nil || *u.ReorgDepth != 2 {
		t.Fatalf("update %+v", u)
	}
	if u.FeeSpike == nil || *u.FeeSpike != (devchain.FeeSpike{Factor: 4, Blocks: 9}) {
		t.Fatalf("fee spike %+v", u.FeeSpike)
	}
	if u.Stall == nil || time.Duration(*u.Stall) != 30*time.Second {
		t.Fatalf("stall %v", u.Stall)
	}
	// Off by default: no spike, no stall, the devchain's reorg depth.
	var zero FaultConfig
	if z := zero.Update(); z.FeeSpike != nil || z.Stall != nil || z.ReorgDepth != nil {
		t.Fatalf("zero fault config sets %+v", z)
	}
}

// sequencer.pipelines reads from YAML as docs/sequencer.md shows it and reaches the
// sequencer's policy.
func TestConfigPipelinesYAML(t *testing.T) {
	path := t.TempDir() + "/ordo.yaml"
	yml := "devSenders: 1\nsequencer:\n  pipelines:\n    - {prefix: ds/, inFlight: 8}\n    - {prefix: ds/hot/, inFlight: 64}\n"
	if err := os.WriteFile(path, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	rules := c.Sequencer.pipelines()
	if got := sequencer.InFlightFor(rules, "ds/hot/1"); got != 64 {
		t.Fatalf("ds/hot/1: %d in flight, want 64 (rules %+v)", got, rules)
	}
	if got := sequencer.InFlightFor(rules, "zkapp"); got != 1 {
		t.Fatalf("zkapp: %d in flight, want 1", got)
	}
}

func TestDistseqConfigValidate(t *testing.T) {
	for _, tt := range []struct {
		name string
		d    DistseqConfig
		want string
	}{
		{"off", DistseqConfig{}, ""},
		{"peers without a key", DistseqConfig{Peers: []DistseqPeer{{ID: "n1"}}}, "distseq.key: is empty"},
		{"key without a cert", DistseqConfig{Key: "k"}, "distseq.cert: is required"},
		{"a peer without a fingerprint", DistseqConfig{Key: "k", Cert: "c", Peers: []DistseqPeer{{ID: "n1", Endpoint: "h:1"}}}, "distseq.peers[0]"},
		{"inFlight too deep", DistseqConfig{Key: "k", Cert: "c", InFlight: 5000}, "distseq.inFlight: must be from 1 to"},
	} {
		c := Config{DevSenders: 1, Distseq: tt.d}
		err := c.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: err %v, want %q", tt.name, err, tt.want)
		}
	}
}
