package procs_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	"github.com/ordolabs/ordo/internal/identity"
	"github.com/ordolabs/ordo/internal/procs"
	"github.com/ordolabs/ordo/internal/transport"
	"github.com/ordolabs/ordo/internal/transport/grpcnet/transportpb"
)

// TestSecurity (issue 11, "Tests"): with a running committee, (a) a fifth
// ordo serve process with a valid identity that is neither in the
// registry nor pinned, configured to talk to the members, is refused: the
// members log the refusal, its id never appears in a member's peers page,
// its intent is never confirmed, and the committee still confirms
// intents; (b) a client presenting a member's id with another key (and
// one presenting an unknown identity) is refused at the TLS handshake.
func TestSecurity(t *testing.T) {
	c := startCommittee(t, procs.Config{Nodes: 4})
	ctx := t.Context()
	t.Run("intruder", func(t *testing.T) { testIntruder(t, c) })
	t.Run("impostor", func(t *testing.T) { testImpostor(t, c) })
	// The committee still works.
	id, err := c.Send(ctx, 0, "after-security", "bob", 7)
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 30*time.Second, "the committee confirming an intent", func() bool {
		r, err := getReceipt(ctx, c, 0, id)
		return err == nil && r != nil && r.Success
	})
}

// testIntruder runs a fifth node from its own `ordo committee init`,
// with every member pinned as its peer, and a group g5 on chain whose
// members are the committee and the intruder: the intruder has every
// reason to talk to the members, who do not know it.
func testIntruder(t *testing.T, c *procs.Committee) {
	ctx := t.Context()
	cfg := c.Config()
	dir := filepath.Join(cfg.Dir, "intruder")
	base, err := procs.FreePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	ordo(t, cfg.Bin, "committee", "init", "--nodes", "1", "--out", dir, "--chain", c.ChainURL(),
		"--base-port", strconv.Itoa(base), "--api-base-port", strconv.Itoa(base+1))
	ims, err := procs.LoadMembers(dir)
	if err != nil {
		t.Fatal(err)
	}
	in := ims[0]
	pinMembers(t, in.Config, c)
	// g5: the committee and the intruder, deployed from a directory of
	// links (what `ordo committee deploy` reads).
	g5 := filepath.Join(cfg.Dir, "g5")
	for i := range c.Nodes() + 1 {
		target := in.Dir
		if i < c.Nodes() {
			target = c.Member(i).Dir
		}
		if err := os.MkdirAll(g5, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(g5, "node"+strconv.Itoa(i+1))); err != nil {
			t.Fatal(err)
		}
	}
	ordo(t, cfg.Bin, "committee", "deploy", "--out", g5, "--group", "g5", "--chain", c.ChainURL(), "--coins", "10")

	p := procs.NewProcess("intruder", cfg.Bin, filepath.Join(cfg.Dir, "logs", "intruder.log"), "serve", "--config", in.Config)
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_, _ = p.Term(context.WithoutCancel(ctx), 10*time.Second)
		if t.Failed() {
			t.Logf("--- intruder ---\n%s", p.Tail(30))
		}
	}()
	// An intent for g5 at the intruder: it must delegate to, or ask
	// endorsements of, members that refuse it.
	ic := intruderClient{api: in.API, token: in.Token}
	var txID string
	waitUntil(t, 30*time.Second, "the intruder accepting an intent", func() bool {
		txID = ic.send(ctx, "g5", "intruder-1")
		return txID != ""
	})
	refused := func() int {
		n := 0
		for i := range c.Nodes() {
			b, _ := os.ReadFile(c.LogPath(i))
			if strings.Contains(string(b), "peer refused") && strings.Contains(string(b), in.ID) {
				n++
			}
		}
		return n
	}
	waitUntil(t, 30*time.Second, "a member logging the intruder's refusal", func() bool { return refused() > 0 })
	// A committee intent confirmed since: time has passed for the
	// intruder's to go anywhere.
	id, err := c.Send(ctx, 1, "while-intruding", "carol", 3)
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 30*time.Second, "the committee confirming an intent", func() bool {
		r, err := getReceipt(ctx, c, 1, id)
		return err == nil && r != nil && r.Success
	})
	for i := range c.Nodes() {
		pg, err := c.Peers(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		for _, pv := range pg.Peers {
			if pv.ID == in.ID {
				t.Errorf("node%d's peers page lists the intruder: %+v", i+1, pv)
			}
		}
		for g, co := range pg.Coordinators {
			if co == in.ID {
				t.Logf("node%d names the intruder coordinator of %s (a g5 member on chain, unreachable)", i+1, g)
			}
		}
	}
	if _, on, err := intentOnChain(ctx, c.Chain(), "g5", txID); err != nil || on {
		t.Errorf("the intruder's intent %s on chain: %v, %v", txID, on, err)
	}
	t.Logf("intruder %s: refused by %d of %d members; its intent %s not on chain", in.ID, refused(), c.Nodes(), txID)
}

// ordo runs a one-shot ordo command.
func ordo(t *testing.T, bin string, args ...string) {
	t.Helper()
	if b, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("ordo %s: %v\n%s", strings.Join(args, " "), err, b)
	}
}

// pinMembers rewrites a node config's distseq.peers to every member of c.
func pinMembers(t *testing.T, config string, c *procs.Committee) {
	t.Helper()
	b, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var peers []map[string]string
	for i := range c.Nodes() {
		m := c.Member(i)
		peers = append(peers, map[string]string{"id": m.ID, "endpoint": m.GRPC, "fingerprint": m.Fingerprint})
	}
	doc["distseq"].(map[string]any)["peers"] = peers
	out, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, out, 0o600); err != nil {
		t.Fatal(err)
	}
}

// intruderClient sends ptx_sendTransaction to the intruder.
type intruderClient struct{ api, token string }

func (ic intruderClient) send(ctx context.Context, group, key string) string {
	body := `{"jsonrpc":"2.0","id":1,"method":"ptx_sendTransaction","params":[{"type":"private","domain":"token","from":"admin","to":"` + group +
		`","data":{"to":"mallory","amount":5},"idempotencyKey":"` + key + `"}]}`
	var out struct {
		Result string `json:"result"`
	}
	if err := postJSON(ctx, ic.api+"/rpc", ic.token, body, &out); err != nil {
		return ""
	}
	return out.Result
}

// testImpostor dials a member's gRPC port with a certificate claiming
// the member's id over another key, and with a valid identity unknown to
// the committee: both are refused at the handshake.
func testImpostor(t *testing.T, c *procs.Committee) {
	ctx := t.Context()
	victim := c.Member(0)
	target := c.Member(1)
	forged := forgeCertificate(t, victim.ID)
	k, err := identity.Generate(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	stranger, err := identity.NewCertificate(k, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cert tls.Certificate
		// logged is what node2's refusal line holds.
		logged []string
	}{
		{"member id, other key", forged, []string{"inbound peer refused", "is not the key's id", victim.ID}},
		{"unknown identity", stranger, []string{"inbound peer refused", "node not in the directory", string(k.ID())}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := dialPeer(ctx, target.GRPC, tc.cert)
			// Past the handshake, the Peer service answers PermissionDenied
			// or AlreadyExists, or keeps the stream: the handshake must fail,
			// which the client sees as Unavailable (the server's alert or
			// its closing the connection).
			if st, _ := status.FromError(err); err == nil || st.Code() != codes.Unavailable {
				t.Fatalf("dialing node2 as %s: %v: the handshake passed", tc.name, err)
			}
			waitUntil(t, 10*time.Second, "node2 logging the refusal", func() bool {
				b, _ := os.ReadFile(c.LogPath(1))
				for _, line := range strings.Split(string(b), "\n") {
					if containsAll(line, tc.logged) {
						return true
					}
				}
				return false
			})
			t.Logf("%s refused at the handshake: %v", tc.name, err)
		})
	}
	pg, err := c.Peers(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, pv := range pg.Peers {
		if pv.ID == string(k.ID()) {
			t.Errorf("node2's peers page lists the stranger: %+v", pv)
		}
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// forgeCertificate is a self-signed certificate whose CN and URI SAN
// claim id over a fresh ed25519 key.
func forgeCertificate(t *testing.T, id string) tls.Certificate {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7),
		Subject:      pkix.Name{CommonName: id},
		URIs:         []*url.URL{identity.URI(transport.NodeID(id))},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, priv)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: priv}
}

// dialPeer opens the Peer service's stream to addr presenting cert and
// waits for its first answer: the error that ends it.
func dialPeer(ctx context.Context, addr string, cert tls.Certificate) error {
	cc, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{
		Certificates:       []tls.Certificate{cert},
		InsecureSkipVerify: true, //nolint:gosec // the test is the impostor: it does not care who answers
		MinVersion:         tls.VersionTLS13,
	})))
	if err != nil {
		return err
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	st, err := transportpb.NewPeerClient(cc).Connect(ctx, grpc.WaitForReady(false))
	if err != nil {
		return err
	}
	_ = st.Send(&transportpb.Frame{Kind: "Hello"})
	_, err = st.Recv()
	return err
}

// postJSON posts body with a bearer token and decodes a 200's JSON.
func postJSON(ctx context.Context, url, token, body string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
