package committee

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/identity"
	"github.com/ordolabs/ordo/internal/smm"
	"github.com/ordolabs/ordo/internal/transport"
)

// Defaults of Options.
const (
	// DefaultChain is where `ordo devchain` listens by default.
	DefaultChain       = "http://127.0.0.1:7545"
	DefaultHost        = "127.0.0.1"
	DefaultBasePort    = 7171
	DefaultAPIBasePort = 7070
	DefaultValidity    = 8760 * time.Hour
	// MaxNodes is the largest committee Init writes.
	MaxNodes = 64
	// AdminPrincipal is the name of the principal each node's token is for.
	AdminPrincipal = "admin"
)

// File names inside a node's directory.
const (
	KeyFile    = "node.key"
	CertFile   = "node.crt"
	ConfigFile = "node.yaml"
	TokenFile  = "token"
	DataDir    = "data"
)

var (
	// ErrInvalid is returned (wrapped) for options Init cannot honour.
	ErrInvalid = errors.New("committee: invalid options")
	// ErrNotEmpty is returned (wrapped) when the output directory exists,
	// holds files and Force is not set.
	ErrNotEmpty = errors.New("committee: output directory is not empty")
)

// Options say which committee Init writes. Zero fields take their
// defaults.
type Options struct {
	// Nodes is the committee's size, 1 to MaxNodes. Required.
	Nodes int
	// Out is the output directory; node i goes to Out/node<i>. Required.
	Out string
	// Chain is the URL of the chain every node uses. Defaults to
	// DefaultChain (`ordo devchain`'s default address).
	Chain string
	// Host is the address every node listens on. Defaults to 127.0.0.1.
	Host string
	// BasePort is node 1's gRPC port; node i's is BasePort+i-1. Defaults
	// to 7171.
	BasePort int
	// APIBasePort is node 1's API port; node i's is APIBasePort+i-1.
	// Defaults to 7070.
	APIBasePort int
	// Validity is how long the certificates are valid from Now. Defaults
	// to 8760h (a year).
	Validity time.Duration
	// Now is the start of the certificates' validity. Required (the
	// caller's clock).
	Now time.Time
	// Rand is the source of keys and tokens. Defaults to
	// crypto/rand.Reader.
	Rand io.Reader
	// Force writes into a non-empty Out, over the files Init makes.
	// Defaults to false.
	Force bool
	// RangeSize is every node's distseq.rangeSize (blocks per coordinator
	// range). Defaults to 0: not written, the node's default (100).
	RangeSize uint64
	// PollEvery is every node's distseq.pollEvery (how often its indexer
	// reads the chain). Defaults to 0: not written, the node's default
	// (500ms).
	PollEvery time.Duration
	// Replication turns on every node's replication of its queues (issue
	// 12): replication.enabled, and distseq.registry (replica sets name
	// the nodes of the chain's registry, where each node registers). Defaults to
	// false: neither is written.
	Replication bool
	// AckAfter is every node's replication.ackAfter (secondaries holding
	// an intent before it is acknowledged, 0 to MaxAckAfter). Defaults to
	// 0: not written, the node's default (0). Needs Replication.
	AckAfter int
	// UnhealthyAfter, MonitorEvery and MappingEvery are every node's
	// replication.unhealthyAfter, monitorEvery and mappingEvery. Default to
	// 0: not written, the node's defaults (30s, 1s, 10m). Need
	// Replication.
	UnhealthyAfter, MonitorEvery, MappingEvery time.Duration
	// EVM, when set, puts every node on that EVM chain instead of Chain.
	// Defaults to nil.
	EVM *EVM
}

// MaxAckAfter is the largest AckAfter: a replica set's secondaries (the
// node's default replication.secondaries).
const MaxAckAfter = smm.DefaultSecondaries

// Member is one node Init wrote.
type Member struct {
	// Index is the node's number, from 1.
	Index int
	// ID is the node id derived from its key.
	ID transport.NodeID
	// API and GRPC are its listen addresses (host:port).
	API, GRPC string
	// Fingerprint is its certificate's (what its peers pin).
	Fingerprint string
	// Dir is its directory; Key, Cert, Config, Token and Data the paths
	// inside it.
	Dir, Key, Cert, Config, Token, Data string
}

// setDefaults fills the zero fields and checks the rest.
func (o *Options) setDefaults() error {
	if o.Chain == "" {
		o.Chain = DefaultChain
	}
	if o.Host == "" {
		o.Host = DefaultHost
	}
	if o.BasePort == 0 {
		o.BasePort = DefaultBasePort
	}
	if o.APIBasePort == 0 {
		o.APIBasePort = DefaultAPIBasePort
	}
	if o.Validity == 0 {
		o.Validity = DefaultValidity
	}
	if o.Rand == nil {
		o.Rand = rand.Reader
	}
	switch {
	case o.Nodes < 1 || o.Nodes > MaxNodes:
		return fmt.Errorf("%w: --nodes must be from 1 to %d, got %d", ErrInvalid, MaxNodes, o.Nodes)
	case o.Out == "":
		return fmt.Errorf("%w: --out is required", ErrInvalid)
	case o.Validity < 0:
		return fmt.Errorf("%w: --validity must be positive, got %s", ErrInvalid, o.Validity)
	case o.PollEvery < 0:
		return fmt.Errorf("%w: --poll-every must be positive, got %s", ErrInvalid, o.PollEvery)
	case o.Now.IsZero():
		return fmt.Errorf("%w: no start time for the certificates", ErrInvalid)
	}
	if err := o.checkReplication(); err != nil {
		return err
	}
	if o.EVM != nil {
		if err := o.EVM.check(o.Nodes); err != nil {
			return err
		}
	}
	for _, p := range []struct {
		flag string
		base int
	}{{"--base-port", o.BasePort}, {"--api-base-port", o.APIBasePort}} {
		if p.base < 1 || p.base+o.Nodes-1 > 65535 {
			return fmt.Errorf("%w: %s %d leaves no room for %d ports below 65536", ErrInvalid, p.flag, p.base, o.Nodes)
		}
	}
	if o.BasePort < o.APIBasePort+o.Nodes && o.APIBasePort < o.BasePort+o.Nodes {
		return fmt.Errorf("%w: the gRPC ports %d-%d and the API ports %d-%d overlap", ErrInvalid,
			o.BasePort, o.BasePort+o.Nodes-1, o.APIBasePort, o.APIBasePort+o.Nodes-1)
	}
	return nil
}

// checkReplication checks the replication options.
func (o *Options) checkReplication() error {
	if !o.Replication && (o.AckAfter != 0 || o.UnhealthyAfter != 0 || o.MonitorEvery != 0 || o.MappingEvery != 0) {
		return fmt.Errorf("%w: --ack-after, --unhealthy-after, --monitor-every and --mapping-every need --replication", ErrInvalid)
	}
	if o.AckAfter < 0 || o.AckAfter > MaxAckAfter {
		return fmt.Errorf("%w: --ack-after must be from 0 to %d (a replica set's secondaries), got %d", ErrInvalid, MaxAckAfter, o.AckAfter)
	}
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"--unhealthy-after", o.UnhealthyAfter}, {"--monitor-every", o.MonitorEvery}, {"--mapping-every", o.MappingEvery}} {
		if d.v < 0 {
			return fmt.Errorf("%w: %s must be positive, got %s", ErrInvalid, d.flag, d.v)
		}
	}
	return nil
}

// Init writes a committee of o.Nodes nodes into o.Out and returns its
// members in order.
func Init(o Options) ([]Member, error) {
	if err := o.setDefaults(); err != nil {
		return nil, err
	}
	out, err := filepath.Abs(o.Out)
	if err != nil {
		return nil, fmt.Errorf("committee: %w", err)
	}
	if err := checkOut(out, o.Force); err != nil {
		return nil, err
	}
	ms := make([]Member, o.Nodes)
	keys := make([]identity.Key, o.Nodes)
	certs := make([]tls.Certificate, o.Nodes)
	for i := range ms {
		k, err := identity.Generate(o.Rand)
		if err != nil {
			return nil, fmt.Errorf("committee: node %d: %w", i+1, err)
		}
		c, err := identity.NewCertificate(k, o.Now, o.Now.Add(o.Validity))
		if err != nil {
			return nil, fmt.Errorf("committee: node %d: %w", i+1, err)
		}
		dir := filepath.Join(out, "node"+strconv.Itoa(i+1))
		keys[i], certs[i] = k, c
		ms[i] = Member{
			Index: i + 1, ID: k.ID(), Fingerprint: identity.FingerprintDER(c.Certificate[0]),
			API:  net.JoinHostPort(o.Host, strconv.Itoa(o.APIBasePort+i)),
			GRPC: net.JoinHostPort(o.Host, strconv.Itoa(o.BasePort+i)),
			Dir:  dir, Key: filepath.Join(dir, KeyFile), Cert: filepath.Join(dir, CertFile),
			Config: filepath.Join(dir, ConfigFile), Token: filepath.Join(dir, TokenFile), Data: filepath.Join(dir, DataDir),
		}
	}
	for i, m := range ms {
		tok, err := newToken(o.Rand)
		if err != nil {
			return nil, fmt.Errorf("committee: node %d: %w", m.Index, err)
		}
		cfg, err := configYAML(o, ms, i, tok)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(m.Dir, 0o700); err != nil {
			return nil, fmt.Errorf("committee: %w", err)
		}
		if err := os.Chmod(m.Dir, 0o700); err != nil {
			return nil, fmt.Errorf("committee: %w", err)
		}
		if err := identity.Save(m.Key, m.Cert, keys[i], certs[i]); err != nil {
			return nil, fmt.Errorf("committee: node %d: %w", m.Index, err)
		}
		if err := writeFile(m.Token, []byte(tok+"\n"), 0o600); err != nil {
			return nil, fmt.Errorf("committee: node %d: %w", m.Index, err)
		}
		if err := writeFile(m.Config, cfg, 0o600); err != nil {
			return nil, fmt.Errorf("committee: node %d: %w", m.Index, err)
		}
	}
	return ms, nil
}

// checkOut refuses an existing non-empty out unless force.
func checkOut(out string, force bool) error {
	es, err := os.ReadDir(out)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("committee: %w", err)
	case len(es) > 0 && !force:
		return fmt.Errorf("%w: %s holds %d entries (--force writes over the files it makes)", ErrNotEmpty, out, len(es))
	}
	return nil
}

// tokenBytes is the randomness of a token, as `ordo token` makes.
const tokenBytes = 32

// newToken returns 32 bytes of r in unpadded base64url (43 characters).
func newToken(r io.Reader) (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// fileConfig is the part of internal/node's Config that Init writes (the
// same YAML names; every other field keeps its default).
type fileConfig struct {
	Listen     string          `yaml:"listen"`
	Data       string          `yaml:"data"`
	Chain      string          `yaml:"chain,omitempty"`
	EVM        map[string]any  `yaml:"evm,omitempty"`
	Senders    []fileSender    `yaml:"senders,omitempty"`
	Principals []filePrincipal `yaml:"principals"`
	DevSenders int             `yaml:"devSenders"`
	Distseq    fileDistseq     `yaml:"distseq"`
	// Replication is written only with Options.Replication.
	Replication *fileReplication `yaml:"replication,omitempty"`
}

// fileReplication is the part of smm.Config Init writes.
type fileReplication struct {
	Enabled        bool   `yaml:"enabled"`
	AckAfter       int    `yaml:"ackAfter,omitempty"`
	UnhealthyAfter string `yaml:"unhealthyAfter,omitempty"`
	MonitorEvery   string `yaml:"monitorEvery,omitempty"`
	MappingEvery   string `yaml:"mappingEvery,omitempty"`
}

type filePrincipal struct {
	Principal   string   `yaml:"principal"`
	TokenSHA256 string   `yaml:"tokenSHA256"`
	Roles       []string `yaml:"roles"`
}

type fileDistseq struct {
	Key       string     `yaml:"key"`
	Cert      string     `yaml:"cert"`
	Listen    string     `yaml:"listen"`
	Peers     []filePeer `yaml:"peers"`
	RangeSize uint64     `yaml:"rangeSize,omitempty"`
	PollEvery string     `yaml:"pollEvery,omitempty"`
	Registry  bool       `yaml:"registry,omitempty"`
}

type filePeer struct {
	ID          string `yaml:"id"`
	Endpoint    string `yaml:"endpoint"`
	Fingerprint string `yaml:"fingerprint"`
}

// configYAML is member i's node.yaml.
func configYAML(o Options, ms []Member, i int, tok string) ([]byte, error) {
	m := ms[i]
	fc := fileConfig{
		Listen: m.API, Data: m.Data, Chain: o.Chain, DevSenders: 1,
		Principals: []filePrincipal{{Principal: AdminPrincipal, TokenSHA256: auth.TokenSHA256(tok), Roles: []string{string(auth.RoleAdmin)}}},
		Distseq:    fileDistseq{Key: m.Key, Cert: m.Cert, Listen: m.GRPC, Peers: []filePeer{}, RangeSize: o.RangeSize},
	}
	if o.PollEvery > 0 {
		fc.Distseq.PollEvery = o.PollEvery.String()
	}
	if o.EVM != nil {
		o.EVM.useEVM(&fc, i)
	}
	if o.Replication {
		fc.Distseq.Registry = true
		fc.Replication = &fileReplication{Enabled: true, AckAfter: o.AckAfter,
			UnhealthyAfter: durationOrEmpty(o.UnhealthyAfter), MonitorEvery: durationOrEmpty(o.MonitorEvery), MappingEvery: durationOrEmpty(o.MappingEvery)}
	}
	for j, p := range ms {
		if j != i {
			fc.Distseq.Peers = append(fc.Distseq.Peers, filePeer{ID: string(p.ID), Endpoint: p.GRPC, Fingerprint: p.Fingerprint})
		}
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# ordo node %d of a committee of %d (ordo committee init); start: ordo serve --config %s\n", m.Index, len(ms), m.Config)
	fmt.Fprintf(&buf, "# node id %s; the API token is in %s (only its SHA-256 is here).\n", m.ID, m.Token)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(fc); err != nil {
		return nil, fmt.Errorf("committee: node %d: config: %w", m.Index, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("committee: node %d: config: %w", m.Index, err)
	}
	return buf.Bytes(), nil
}

// durationOrEmpty is d as a Go duration, or "" (not written) for 0.
func durationOrEmpty(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return d.String()
}

// writeFile writes data to path with mode perm, also over an existing file
// with a wider mode.
func writeFile(path string, data []byte, perm os.FileMode) error {
	if err := os.WriteFile(path, data, perm); err != nil {
		return err
	}
	return os.Chmod(path, perm)
}
