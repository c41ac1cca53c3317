package devchain_test

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
)

// The faucet's caps: per call (FaucetMax) and per account (FaucetAccountMax),
// each refused with faucet_limit (422) and changing nothing, in process and
// over HTTP alike.
func TestFaucetCaps(t *testing.T) {
	type grant struct {
		account string // label of the account's key
		amount  uint64
		ok      bool
	}
	cases := []struct {
		name   string
		cfg    devchain.Config
		grants []grant
	}{
		{"at the per-call cap", devchain.Config{FaucetMax: 100, FaucetAccountMax: 1000}, []grant{{"a", 100, true}}},
		{"over the per-call cap", devchain.Config{FaucetMax: 100, FaucetAccountMax: 1000}, []grant{{"a", 101, false}, {"a", 100, true}}},
		{"up to the per-account cap", devchain.Config{FaucetMax: 400, FaucetAccountMax: 1000},
			[]grant{{"a", 400, true}, {"a", 400, true}, {"a", 201, false}, {"a", 200, true}, {"a", 1, false}, {"b", 400, true}}},
		{"per-account cap under the per-call cap", devchain.Config{FaucetMax: 1000, FaucetAccountMax: 10}, []grant{{"a", 11, false}, {"a", 10, true}, {"a", 1, false}}},
		{"largest amount", devchain.Config{}, []grant{{"a", ^uint64(0), false}}},
		{"defaults: ten calls at the per-call cap", devchain.Config{},
			append(repeatGrant(grant{"a", 1e15, true}, 10), grant{"a", 1, false}, grant{"b", 1e15, true})},
	}
	for _, c := range cases {
		for _, via := range []string{"in process", "http"} {
			t.Run(c.name+"/"+via, func(t *testing.T) {
				e := newEnv(t, c.cfg)
				for i, g := range c.grants {
					addr := chain.KeyAddress(chain.KeyFromSeed("faucet/" + g.account))
					before, _ := e.chain.Account(t.Context(), addr)
					var err error
					if via == "http" {
						r := e.raw(t, "POST", "/v1/faucet", []byte(`{"address":"`+string(addr)+`","amount":`+strconv.FormatUint(g.amount, 10)+`}`))
						if !g.ok {
							checkError(t, r, http.StatusUnprocessableEntity, devchain.CodeFaucetLimit)
							_, err = e.client.Faucet(t.Context(), addr, g.amount)
						} else if r.status != 200 {
							t.Fatalf("grant %d: %d %s", i, r.status, r.body)
						}
					} else {
						_, err = e.chain.Faucet(t.Context(), addr, g.amount)
					}
					after, _ := e.chain.Account(t.Context(), addr)
					if !g.ok {
						if !errors.Is(err, devchain.ErrFaucetLimit) || !errors.Is(err, chain.ErrInvalidTx) || !strings.Contains(err.Error(), "cap") {
							t.Fatalf("grant %d of %d: %v, want ErrFaucetLimit naming the cap", i, g.amount, err)
						}
						if after != before {
							t.Fatalf("grant %d: refused, yet the account changed: %+v → %+v", i, before, after)
						}
						continue
					}
					if err != nil || after.Balance != before.Balance+g.amount {
						t.Fatalf("grant %d of %d: %v; balance %d → %d", i, g.amount, err, before.Balance, after.Balance)
					}
				}
			})
		}
	}
}

func repeatGrant[T any](g T, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = g
	}
	return out
}

// What the faucet credited an account survives a restart: the cap is over
// the chain's life, not the process's.
func TestFaucetAccountCapSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	cfg := devchain.Config{Clock: clock.NewVirtual(clock.Epoch), DataDir: dir, FaucetMax: 600, FaucetAccountMax: 1000}
	addr := chain.KeyAddress(chain.KeyFromSeed("faucet/restart"))
	c, err := devchain.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Faucet(t.Context(), addr, 600); err != nil {
		t.Fatal(err)
	}
	c.Close()
	c, err = devchain.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Faucet(t.Context(), addr, 401); !errors.Is(err, devchain.ErrFaucetLimit) {
		t.Fatalf("after a restart, 600+401 over a cap of 1000: %v, want ErrFaucetLimit", err)
	}
	if ac, err := c.Faucet(t.Context(), addr, 400); err != nil || ac.Balance != 1000 {
		t.Fatalf("after a restart, 600+400: %+v %v", ac, err)
	}
}

// The defaults, and the faucet's users in the repository under them: the
// node's --dev-senders top-up (1e14 per call, internal/node), the bench's
// funding (1e15 once per account, internal/bench), the tests' 1e12.
func TestFaucetDefaults(t *testing.T) {
	c, err := devchain.New(devchain.Config{Clock: clock.NewVirtual(clock.Epoch)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cfg := c.Config()
	if cfg.FaucetMax != 1e15 || cfg.FaucetAccountMax != 1e16 {
		t.Fatalf("defaults: per call %d, per account %d; want 1e15 and 1e16", cfg.FaucetMax, cfg.FaucetAccountMax)
	}
	users := []struct {
		name   string
		amount uint64
		calls  int
	}{
		{"node --dev-senders top-ups", 1e14, 100},
		{"bench funding", 1e15, 1},
		{"tests", 1e12, 10},
	}
	for _, u := range users {
		t.Run(u.name, func(t *testing.T) {
			addr := chain.KeyAddress(chain.KeyFromSeed("faucet/user/" + u.name))
			for i := range u.calls {
				if _, err := c.Faucet(t.Context(), addr, u.amount); err != nil {
					t.Fatalf("call %d of %d: %v", i+1, u.amount, err)
				}
			}
		})
	}
}
