package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/ordolabs/ordo/internal/chain/evm/contracts"
	"github.com/ordolabs/ordo/internal/chain/evm/evmdev"
)

var deployConfigRE = regexp.MustCompile(`(?m)^evm:\n  urls: \[(http://[^\]]+)\]\n  chainId: (\d+)\n  router: "(0x[0-9a-f]{40})"\n`)

func TestEVMDeployCommand(t *testing.T) {
	c, cl := startEVMDev(t, 3)
	router, voting := contracts.NewOrdoRouter(), contracts.NewVoting()
	stranger := common.HexToAddress("0x00000000000000000000000000000000000000aa")

	// A keystore key file for dev account 2, its password in a file.
	dir := t.TempDir()
	ks := keystore.NewKeyStore(filepath.Join(dir, "ks"), keystore.LightScryptN, keystore.LightScryptP)
	acct, err := ks.ImportECDSA(c.Keys[2], "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	pwFile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	sub := evmdev.AddressString(evmdev.DevAddress(100)) // an account not on the chain yet
	for _, tc := range []struct {
		name     string
		args     []string
		env      string // ORDO_EVM_PASSWORD
		deployer common.Address
		voting   bool
	}{
		{"raw key file", []string{"--key-file", c.KeyFiles[1], "--submitter", sub, "--voting", "--library", "--leader", "--leader-cap", sub}, "", c.Accounts[1], true},
		{"keystore file", []string{"--key-file", acct.URL.Path, "--password-file", pwFile, "--submitter", sub, "--chain-id", "1337"}, "", c.Accounts[2], false},
		{"keystore file, password from the environment", []string{"--key-file", acct.URL.Path, "--submitter", sub}, "s3cret", c.Accounts[2], false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv(envEVMPassword, tc.env)
			}
			var out syncBuffer
			if err := runOrdo(t.Context(), &out, append([]string{"evm", "deploy", "--url", c.HTTPURL}, tc.args...)...); err != nil {
				t.Fatalf("ordo evm deploy: %v\n%s", err, out.String())
			}
			m := deployConfigRE.FindStringSubmatch(out.String())
			if m == nil {
				t.Fatalf("no evm: section in\n%s", out.String())
			}
			if m[1] != c.HTTPURL || m[2] != "1337" {
				t.Errorf("urls %s chainId %s", m[1], m[2])
			}
			addr := common.HexToAddress(m[3])
			for _, a := range []struct {
				who  common.Address
				want bool
			}{{common.HexToAddress(sub), true}, {tc.deployer, true}, {stranger, false}} {
				if got := contractValue(t, cl, addr, router.PackIsSubmitter(a.who), router.UnpackIsSubmitter); got != a.want {
					t.Errorf("isSubmitter(%s) = %v, want %v", a.who.Hex(), got, a.want)
				}
			}
			if !strings.Contains(out.String(), "owner     "+evmdev.AddressString(tc.deployer)) {
				t.Errorf("output does not name the deployer %s:\n%s", tc.deployer.Hex(), out.String())
			}
			hasVoting, hasLibrary := strings.Contains(out.String(), "abi: Voting}"), strings.Contains(out.String(), "abi: Library}")
			if hasVoting != tc.voting || hasLibrary != tc.voting { // the case with --voting also has --library
				t.Fatalf("Voting, Library in the config: %v, %v, want %v\n%s", hasVoting, hasLibrary, tc.voting, out.String())
			}
			if tc.voting {
				vm := regexp.MustCompile(`voting: \{address: "(0x[0-9a-f]{40})"`).FindStringSubmatch(out.String())
				res, err := cl.CallContract(t.Context(), callTo(common.HexToAddress(vm[1]), voting.PackTrustedRouter()), nil)
				if err != nil {
					t.Fatal(err)
				}
				if r, err := voting.UnpackTrustedRouter(res); err != nil || r != addr {
					t.Errorf("Voting trusts %s, %v; want the router %s", r.Hex(), err, addr.Hex())
				}
				// --leader: the workflow, its admin the deployer, sub's one cap.
				wf := contracts.NewWorkflow()
				wm := regexp.MustCompile(`workflow: \{address: "(0x[0-9a-f]{40})", abi: Workflow\}`).FindStringSubmatch(out.String())
				if wm == nil || !strings.Contains(out.String(), "abi: ToolRegistry}") {
					t.Fatalf("no workflow or registry in the config:\n%s", out.String())
				}
				if a := contractValue(t, cl, common.HexToAddress(wm[1]), wf.PackAdmin(), wf.UnpackAdmin); a != tc.deployer {
					t.Errorf("the workflow's admin %s, want the deployer", a.Hex())
				}
				if n := contractValue(t, cl, common.HexToAddress(wm[1]), wf.PackCaps(common.HexToAddress(sub)), wf.UnpackCaps); n.Uint64() != 1 {
					t.Errorf("caps of --leader-cap %s: %d, want 1", sub, n)
				}
			}
		})
	}
}

func TestEVMDeployCommandRefuses(t *testing.T) {
	t.Setenv(envEVMPassword, "")
	c, err := evmdev.Start(t.Context(), evmdev.Config{Accounts: 1, BlockTime: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	dir := t.TempDir()
	ks := keystore.NewKeyStore(filepath.Join(dir, "ks"), keystore.LightScryptN, keystore.LightScryptP)
	acct, err := ks.ImportECDSA(c.Keys[0], "pw")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--key-file", c.KeyFiles[0], "--submitter", "0x12"}, "want 0x and 40 hex digits"},
		{[]string{"--key-file", filepath.Join(dir, "none")}, "--key-file"},
		{[]string{"--key-file", acct.URL.Path}, "--password-file or $ORDO_EVM_PASSWORD"},
		{[]string{"--key-file", c.KeyFiles[0], "--chain-id", "1"}, "the chain's id is 1337, not 1"},
	} {
		var out syncBuffer
		err := runOrdo(t.Context(), &out, append([]string{"evm", "deploy", "--url", c.HTTPURL}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ordo evm deploy %s: %v; want %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

func callTo(to common.Address, data []byte) ethereum.CallMsg {
	return ethereum.CallMsg{To: &to, Data: data}
}

// startEVMDev starts an evmdev chain of accounts dev accounts and dials
// it over plain JSON-RPC; both close when t ends.
func startEVMDev(t *testing.T, accounts int) (*evmdev.Chain, *ethclient.Client) {
	t.Helper()
	c, err := evmdev.Start(t.Context(), evmdev.Config{Accounts: accounts, BlockTime: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	cl, err := ethclient.DialContext(t.Context(), c.HTTPURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return c, cl
}

// contractValue reads one value of a contract over JSON-RPC.
func contractValue[T any](t *testing.T, cl *ethclient.Client, to common.Address, data []byte, unpack func([]byte) (T, error)) T {
	t.Helper()
	out, err := cl.CallContract(t.Context(), ethereum.CallMsg{To: &to, Data: data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := unpack(out)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestEVMDeployPrivacyGroup: --privacygroup alone deploys PrivacyGroup,
// trusting the router, and names it in the evm: section's contracts.
func TestEVMDeployPrivacyGroup(t *testing.T) {
	c, cl := startEVMDev(t, 2)
	var out syncBuffer
	if err := runOrdo(t.Context(), &out, "evm", "deploy", "--url", c.HTTPURL, "--key-file", c.KeyFiles[1], "--privacygroup"); err != nil {
		t.Fatalf("ordo evm deploy: %v\n%s", err, out.String())
	}
	m := deployConfigRE.FindStringSubmatch(out.String())
	pm := regexp.MustCompile(`\n  contracts:\n    privacygroup: \{address: "(0x[0-9a-f]{40})", abi: PrivacyGroup\}\n`).FindStringSubmatch(out.String())
	if m == nil || pm == nil {
		t.Fatalf("no evm: section with contracts.privacygroup in\n%s", out.String())
	}
	pg := contracts.NewPrivacyGroup()
	res, err := cl.CallContract(t.Context(), callTo(common.HexToAddress(pm[1]), pg.PackTrustedRouter()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := pg.UnpackTrustedRouter(res); err != nil || r != common.HexToAddress(m[3]) {
		t.Errorf("PrivacyGroup trusts %s, %v; want the router %s", r.Hex(), err, m[3])
	}
}
