package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/internal/node"
)

// logsWith runs a command under a root with the logger flags and args, and
// returns what its logger wrote (one debug, one info, one warn and one
// error line are logged).
func logsWith(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	root := &cobra.Command{Use: "ordo", SilenceUsage: true, SilenceErrors: true}
	registerLogFlags(root.PersistentFlags())
	root.AddCommand(&cobra.Command{Use: "x", RunE: func(cmd *cobra.Command, _ []string) error {
		log := newLogger(cmd, &out)
		log.Debug("d")
		log.Info("i", "k", "v")
		log.Warn("w")
		log.Error("e")
		return nil
	}})
	root.SetArgs(append([]string{"x"}, args...))
	err := root.Execute()
	return out.String(), err
}

func TestLoggerFlags(t *testing.T) {
	out, err := logsWith(t)
	if err != nil || strings.Contains(out, "msg=d") || !strings.Contains(out, `level=INFO msg=i k=v`) {
		t.Fatalf("default (text, info): %v\n%s", err, out)
	}
	out, err = logsWith(t, "--log-format", "json", "--log-level", "warn")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("json, warn: %d lines\n%s", len(lines), out)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil || rec["level"] != "WARN" || rec["msg"] != "w" {
		t.Fatalf("json line %q: %v", lines[0], err)
	}
	for _, args := range [][]string{{"-v"}, {"--verbose"}, {"--log-level", "debug"}, {"--log-level", "error", "-v"}} {
		out, err = logsWith(t, args...)
		if err != nil || !strings.Contains(out, "level=DEBUG msg=d") {
			t.Fatalf("%v: debug line missing: %v\n%s", args, err, out)
		}
	}
	if out, err = logsWith(t, "--log-level", "error"); err != nil || strings.Contains(out, "msg=w") || !strings.Contains(out, "msg=e") {
		t.Fatalf("error level: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"--log-level", "loud"}, {"--log-format", "xml"}} {
		if _, err := logsWith(t, args...); err == nil {
			t.Fatalf("%v accepted", args)
		}
	}
}

// serve and devchain take the logger flags from the root (no flag of their
// own shadows them).
func TestLoggerFlagsReachCommands(t *testing.T) {
	for _, c := range []*cobra.Command{serveCommand(), devchainCommand()} {
		for _, name := range []string{flagLogFormat, flagLogLevel, flagVerbose} {
			if c.Flags().Lookup(name) != nil || c.Flags().ShorthandLookup("v") != nil {
				t.Errorf("%s defines its own --%s or -v", c.Name(), name)
			}
		}
	}
}

// ordo serve logs its effective limits in one line at start.
func TestLogLimits(t *testing.T) {
	n, err := node.Build(context.Background(), node.Config{Data: t.TempDir(), DevSenders: 3, MaxRetries: 4,
		Types: map[string]node.TypeConfig{"SEND_CLAIM_VOTE": {MaxRetries: 9}}}, node.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	var out bytes.Buffer
	logLimits(context.Background(), slog.New(slog.NewTextHandler(&out, nil)), n)
	line := out.String()
	if strings.Count(line, "\n") != 1 {
		t.Fatalf("%d lines:\n%s", strings.Count(line, "\n"), line)
	}
	for _, want := range []string{"senders=3", "workerSenders=0", "allowedTypes=COMMIT_ALL_VOTING_BATCHES,", "blockTime=1s", "maxBlockTxs=1000",
		"inclusionTimeoutBlocks=5", "confirmations=1 ", "maxRetries=4", "retryDelay=5s", `types.SEND_CLAIM_VOTE="maxRetries=9 retryDelay=5s"`, "chainTimeout=30s"} {
		if !strings.Contains(line, want) {
			t.Errorf("limits line lacks %s:\n%s", want, line)
		}
	}
}
