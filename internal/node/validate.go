package node

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"sort"
	"time"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
)

// minBumpPercent is the smallest fee rise a retry may take: the chain accepts
// a replacement only if it pays at least 110% of the pending transaction's
// fee (chain.ErrReplacementUnderpriced).
const minBumpPercent = 10

// Validate checks the configuration and returns every problem found, each
// naming its field as in the YAML file (for example "fees.bumpPercent"),
// joined with errors.Join; nil means the configuration is valid. Fields left
// unset are checked at their defaults, so Validate gives the same answer
// before and after SetDefaults. It changes nothing.
func (c Config) Validate() error {
	c.SetDefaults() // c is a copy
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{field}, args...)...))
	}
	nonNegative := func(field string, d Duration) {
		if d < 0 {
			bad(field, "must not be negative, got %s", time.Duration(d))
		}
	}

	c.Distseq.validate(bad)
	c.PTX.validate(bad)
	validateReplication(c.Replication, c.Distseq, bad)
	validateEVMReplication(c, bad)
	if err := c.Store.validate(); err != nil {
		bad("store.url", "%v", err)
	}
	if c.Replication.Enabled && c.Store.postgres() {
		bad("replication.enabled", "replica sets are for nodes with their own stores; on a shared PostgreSQL store (store.url) leave replication off")
	}
	if c.Chain != "" {
		if err := checkChainURL(c.Chain); err != nil {
			bad("chain", "%v", err)
		}
	}
	c.EVM.validate(c.Chain, bad)
	if c.EVM.enabled() {
		for i, t := range c.AllowedTypes {
			if slices.Contains(dispatch.BuiltinTypes(), t) && c.Types[t].Worker == "" {
				bad(fmt.Sprintf("allowedTypes[%d]", i), "%s is built on devchain's zkapp contract, which an EVM chain has not; send contract calls (type call) through the router, or give the type a worker (types.%s.worker)", t, t)
			}
		}
	}
	if c.DevSenders < 0 {
		bad("devSenders", "must not be negative, got %d", c.DevSenders)
	}
	if c.DevSenders == 0 && len(c.Senders) == 0 {
		bad("devSenders", "is 0 and no senders are configured, so the node would have no sender; set devSenders to at least 1 or configure senders")
	}
	for i, s := range c.Senders {
		field := fmt.Sprintf("senders[%d]", i)
		switch {
		case s.KeyFile == "" && s.Worker == "":
			bad(field, "needs a keyFile or a worker")
		case s.KeyFile != "" && s.Worker != "":
			bad(field, "has both a keyFile and a worker; set one")
		case s.Worker != "" && s.Address == "":
			bad(field+".address", "required with a worker")
		case s.Worker != "" && c.EVM.enabled():
			if !evmAddress.MatchString(s.Address) {
				bad(field+".address", "%q is not an address (0x and 40 hex digits)", s.Address)
			}
		case s.Worker != "":
			if err := chain.ValidateAddress(chain.Address(s.Address)); err != nil {
				errs = append(errs, fmt.Errorf("%s.address: %w", field, err))
			}
		}
	}

	prefixes := map[string]int{}
	for i, p := range c.Sequencer.Pipelines {
		field := fmt.Sprintf("sequencer.pipelines[%d]", i)
		if p.InFlight < 1 || p.InFlight > sequencer.MaxInFlight {
			bad(field+".inFlight", "must be from 1 to %d, got %d", sequencer.MaxInFlight, p.InFlight)
		}
		if j, ok := prefixes[p.Prefix]; ok {
			bad(field+".prefix", "%q is also the prefix of sequencer.pipelines[%d]; one rule per prefix", p.Prefix, j)
		}
		prefixes[p.Prefix] = i
	}

	nonNegative("retryDelay", c.RetryDelay)
	if c.MaxRetries < 0 {
		bad("maxRetries", "must not be negative, got %d", c.MaxRetries)
	}
	types := make([]string, 0, len(c.Types))
	for t := range c.Types {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		tc := c.Types[t]
		field := "types." + t
		if !slices.Contains(c.AllowedTypes, t) {
			bad(field, "not an allowed type (allowedTypes: %v)", c.AllowedTypes)
		}
		if tc.MaxRetries < 0 {
			bad(field+".maxRetries", "must not be negative, got %d", tc.MaxRetries)
		}
		nonNegative(field+".retryDelay", tc.RetryDelay)
		if tc.Worker != "" {
			if err := checkBaseURL(tc.Worker, "http://127.0.0.1:8081"); err != nil {
				bad(field+".worker", "%v", err)
			}
		}
	}

	if c.Fees.BumpPercent < minBumpPercent {
		bad("fees.bumpPercent", "must be at least %d (the chain's replacement rule), got %d", minBumpPercent, c.Fees.BumpPercent)
	}
	if c.Fees.Max < c.Fees.Initial {
		bad("fees.max", "must be at least fees.initial (%d), got %d", c.Fees.Initial, c.Fees.Max)
	}

	nonNegative("workerTimeout", c.WorkerTimeout)
	if err := c.Intake().Validate(); err != nil {
		errs = append(errs, err) // it names maxDataDepth
	}
	for i, o := range c.API.CORSOrigins {
		if _, err := api.NormalizeOrigin(o); err != nil {
			bad(fmt.Sprintf("api.corsOrigins[%d]", i), "%v", err)
		}
	}
	errs = append(errs, c.validateAPI()...)

	if err := c.Auth().Validate(); err != nil {
		errs = append(errs, err) // it names principals[i]...
	}
	typeNames := slices.Sorted(maps.Keys(c.IntakeAccess.TypeRoles))
	for _, t := range typeNames {
		for k, r := range c.IntakeAccess.TypeRoles[t] {
			if !auth.ValidRole(r) {
				bad(fmt.Sprintf("intake.typeRoles.%s[%d]", t, k), "%q is not a role: 1 to 32 characters from a-z 0-9 _ -", sequencer.Excerpt(string(r)))
			}
		}
	}

	pc := c.Processor
	for _, d := range []struct {
		field string
		v     Duration
	}{{"processor.checkEvery", pc.CheckEvery}, {"processor.backoffMin", pc.BackoffMin}, {"processor.backoffMax", pc.BackoffMax}, {"processor.deliveryTimeout", pc.DeliveryTimeout}} {
		nonNegative(d.field, d.v)
	}
	if pc.MaxDeliveries < 0 {
		bad("processor.maxDeliveries", "must not be negative, got %d", pc.MaxDeliveries)
	}
	lc := c.Leader
	for i, a := range lc.Accounts {
		if c.EVM.enabled() {
			if !evmLowerAddress.MatchString(a) {
				bad(fmt.Sprintf("leader.accounts[%d]", i), "%q is not an EVM address: 0x and 40 lowercase hex digits", a)
			}
		} else if err := chain.ValidateAddress(chain.Address(a)); err != nil {
			bad(fmt.Sprintf("leader.accounts[%d]", i), "%v", err)
		}
	}
	for _, d := range []struct {
		field string
		v     Duration
	}{{"leader.toolTimeout", lc.ToolTimeout}, {"leader.retryEvery", lc.RetryEvery}, {"leader.sweepAfter", lc.SweepAfter}, {"leader.staleAfter", lc.StaleAfter}, {"leader.blockFor", lc.BlockFor}} {
		nonNegative(d.field, d.v)
	}
	for _, v := range []struct {
		field string
		n     int
	}{{"leader.capacity", lc.Capacity}, {"leader.maxActive", lc.MaxActive}, {"leader.maxRetries", lc.MaxRetries}} {
		if v.n < 0 {
			bad(v.field, "must not be negative, got %d", v.n)
		}
	}
	if pc.MaxQueued < 0 {
		bad("processor.maxQueued", "must not be negative, got %d", pc.MaxQueued)
	}

	nonNegative("devchain.blockTime", c.Devchain.BlockTime)
	if c.Devchain.MaxBlockTxs < 0 {
		bad("devchain.maxBlockTxs", "must not be negative, got %d", c.Devchain.MaxBlockTxs)
	}
	errs = append(errs, c.Devchain.Faults.validate()...)
	c.Egress.validate(bad)
	nonNegative("shutdownGrace", c.ShutdownGrace)
	c.Retention.validate(bad)
	c.Dashboard.validate(bad)
	return errors.Join(errs...)
}

// checkChainURL checks the URL of a remote chain (see checkBaseURL).
func checkChainURL(s string) error { return checkBaseURL(s, "http://127.0.0.1:7545") }

// checkBaseURL checks a base URL the node appends paths to (a chain's, a
// worker's): http or https, a host, and neither a query nor a fragment.
func checkBaseURL(s, example string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("must be an http(s) URL such as %s, got %s: %w", example, sequencer.Excerpt(s), errors.Unwrap(err))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("must be an http(s) URL such as %s, got %s (scheme %s)", example, sequencer.Excerpt(s), sequencer.Excerpt(u.Scheme))
	}
	if u.Host == "" || u.Hostname() == "" {
		return fmt.Errorf("must be an http(s) URL with a host, such as %s, got %s", example, sequencer.Excerpt(s))
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return fmt.Errorf("must be a base URL, without a query or fragment, got %s", sequencer.Excerpt(s))
	}
	return nil
}

// validate checks the fault knobs, naming each as in the YAML file.
func (f FaultConfig) validate() []error {
	var errs []error
	for _, p := range []struct {
		field string
		v     float64
	}{{"rejectProb", f.RejectProb}, {"dropProb", f.DropProb}, {"revertProb", f.RevertProb}} {
		if math.IsNaN(p.v) || p.v < 0 || p.v > 1 {
			errs = append(errs, fmt.Errorf("devchain.faults.%s: must be between 0 and 1, got %v", p.field, p.v))
		}
	}
	if f.FeeSpike.Blocks > 0 && f.FeeSpike.Factor == 0 {
		errs = append(errs, fmt.Errorf("devchain.faults.feeSpike.factor: must be at least 1 when feeSpike.blocks is set, got 0"))
	}
	if f.Stall < 0 {
		errs = append(errs, fmt.Errorf("devchain.faults.stall: must not be negative, got %s", time.Duration(f.Stall)))
	}
	if len(errs) > 0 {
		return errs
	}
	// The devchain's own ranges (reorgDepth, feeSpike, stall).
	if err := f.Update().Validate(); err != nil {
		return []error{fmt.Errorf("devchain.faults: %w", err)}
	}
	return nil
}
