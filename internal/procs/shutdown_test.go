package procs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/httpjson"
	"github.com/ordolabs/ordo/internal/procs"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/testkit"
)

// TestSIGTERMUnderLoad: `ordo serve` sent SIGTERM while 8 clients post
// intents exits 0 within its shutdown grace, answers intake 503
// shutting_down while it drains, logs "stopped cleanly", and loses nothing
// it acknowledged: started again on its data directory, it has every
// intent it answered 201, and each ends DONE.
func TestSIGTERMUnderLoad(t *testing.T) {
	if !testkit.Long() {
		t.Skip("processes: a long run (ORDO_LONG=1; .ci/run sets it)")
	}
	bin := ordoBin(t)
	dir := t.TempDir()
	port, err := procs.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cfg := filepath.Join(dir, "ordo.yaml")
	if err := os.WriteFile(cfg, []byte("shutdownGrace: 15s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := procs.NewProcess("node", bin, filepath.Join(dir, "node.log"), "serve", "--config", cfg, "--dev-mode",
		"--data", filepath.Join(dir, "data"), "--listen", addr, "--block-time", "200ms")
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.Kill()
		if t.Failed() {
			t.Logf("--- %s ---\n%s", p.LogPath(), p.Tail(40))
		}
	})
	hc := &http.Client{Timeout: 5 * time.Second}
	ready := func() bool {
		resp, err := hc.Get("http://" + addr + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	waitUntil(t, 60*time.Second, "the node ready", ready)

	var (
		mu       sync.Mutex
		acked    []string // uids answered 201
		refused  int      // answered 503 shutting_down
		unwanted []string // any other answer than 201, 503 shutting_down or no connection
	)
	post := func(ctx context.Context, queue, typ, data string) (int, string, error) {
		b, _ := json.Marshal(map[string]any{"queue": queue, "type": typ, "data": json.RawMessage(data)})
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/v1/transactions", bytes.NewReader(b))
		if err != nil {
			return 0, "", err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusCreated {
			var rec store.Transaction
			return resp.StatusCode, rec.UID, errors.Join(json.NewDecoder(resp.Body).Decode(&rec), func() error {
				mu.Lock()
				defer mu.Unlock()
				acked = append(acked, rec.UID)
				return nil
			}())
		}
		var e httpjson.ErrorBody
		_ = json.NewDecoder(resp.Body).Decode(&e)
		return resp.StatusCode, e.Error.Code, nil
	}
	loadCtx, stopLoad := context.WithCancel(t.Context())
	defer stopLoad()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			queue := fmt.Sprintf("term-%d", w)
			for k := 0; loadCtx.Err() == nil; {
				typ, data := sequencer.SendClaimVote, fmt.Sprintf(`{"voter":"voter-%d","vote":true}`, k)
				if k == 0 {
					typ, data = sequencer.CreateClaimVotingAccount, `{"title":"term"}`
				}
				status, code, err := post(loadCtx, queue, typ, data)
				switch {
				case err != nil:
					// no connection (the node is gone) or a request cut off
				case status == http.StatusCreated:
					k++
				case status == http.StatusServiceUnavailable && code == api.CodeShuttingDown:
					mu.Lock()
					refused++
					mu.Unlock()
				default:
					mu.Lock()
					unwanted = append(unwanted, fmt.Sprintf("%d %s", status, code))
					mu.Unlock()
				}
				time.Sleep(10 * time.Millisecond) // a client's pace
			}
		})
	}
	waitUntil(t, 30*time.Second, "intents acknowledged", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(acked) >= 100
	})
	clean, err := p.Term(t.Context(), 30*time.Second)
	stopLoad()
	wg.Wait()
	if err != nil || !clean {
		t.Fatalf("SIGTERM: clean %v, %v: the node did not exit within 30s", clean, err)
	}
	if err := p.ExitErr(); err != nil {
		t.Fatalf("the node exited with %v after SIGTERM, want status 0", err)
	}
	log, err := os.ReadFile(p.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(log), "stopped cleanly")
	if i < 0 {
		t.Fatal(`no "stopped cleanly" in the node's log`)
	}
	line, _, _ := strings.Cut(string(log[i:]), "\n")
	t.Logf("the node's log: ...%s", line)
	mu.Lock()
	t.Logf("%d intents acknowledged, %d answered 503 shutting_down while the node drained", len(acked), refused)
	if len(unwanted) > 0 {
		t.Errorf("answers other than 201 and 503 shutting_down: %v", unwanted)
	}
	if refused == 0 {
		t.Errorf("no client was answered 503 %s while the node drained", api.CodeShuttingDown)
	}
	uids := append([]string(nil), acked...)
	mu.Unlock()

	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 60*time.Second, "the node ready again", ready)
	pending := map[string]bool{}
	for _, uid := range uids {
		pending[uid] = true
	}
	waitUntil(t, 90*time.Second, "every acknowledged intent DONE", func() bool {
		for uid := range pending {
			resp, err := hc.Get("http://" + addr + "/v1/transactions/" + uid)
			if err != nil {
				return false
			}
			var out struct {
				Transaction store.Transaction `json:"transaction"`
			}
			err = json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			switch {
			case resp.StatusCode == http.StatusNotFound:
				t.Fatalf("acknowledged intent %s lost after SIGTERM and a restart", uid)
			case err != nil || resp.StatusCode != http.StatusOK:
				return false
			case out.Transaction.State == store.Failed:
				t.Fatalf("acknowledged intent %s FAILED: %s", uid, out.Transaction.Error)
			case out.Transaction.State == store.Done:
				delete(pending, uid)
			}
		}
		return len(pending) == 0
	})
}
