package node

import (
	"github.com/ordolabs/ordo/internal/egress"
)

// EgressConfig is the policy for the outbound URLs the node calls on
// others' say-so: processors' callback URLs (set by whoever creates a
// processor) and tools' URLs (read from the on-chain registry, set by
// whoever registers a tool). Each address is checked when it is dialed,
// after name resolution (internal/egress): link-local addresses
// (169.254.0.0/16, fe80::/10) and cloud metadata addresses
// (169.254.169.254, fd00:ec2::254, 100.100.100.200) are always refused;
// private ranges and loopback unless allowed here. Remote worker URLs
// (senders, types) come from this file and are not checked.
type EgressConfig struct {
	// AllowPrivate lets the node connect to private addresses
	// (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10,
	// fc00::/7). Defaults to false.
	AllowPrivate bool `yaml:"allowPrivate"`
	// AllowLoopback lets the node connect to loopback addresses
	// (127.0.0.0/8, ::1): its own host's services. Defaults to false, or
	// to true in dev mode (devMode), where tools and callback receivers
	// usually run on the same machine; false here refuses loopback in dev
	// mode too.
	AllowLoopback *bool `yaml:"allowLoopback"`
	// Allow are CIDR prefixes (or single addresses) allowed though private
	// or loopback, e.g. [10.1.0.0/16] for one subnet of tools. They never
	// open link-local or metadata addresses. Defaults to none.
	Allow []string `yaml:"allow"`
}

// policy is the egress policy of a node in dev mode or not.
func (e EgressConfig) policy(devMode bool) (egress.Policy, error) {
	allow, err := egress.ParseAllow(e.Allow)
	if err != nil {
		return egress.Policy{}, err
	}
	loopback := devMode
	if e.AllowLoopback != nil {
		loopback = *e.AllowLoopback
	}
	return egress.Policy{AllowPrivate: e.AllowPrivate, AllowLoopback: loopback, Allow: allow}, nil
}

// validate reports what is wrong with e, naming the field.
func (e EgressConfig) validate(bad func(field, format string, args ...any)) {
	if _, err := egress.ParseAllow(e.Allow); err != nil {
		bad("egress.allow", "%v", err)
	}
}
