package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ordolabs/ordo/internal/node"
)

// The logger flags, persistent on the root command (every command that logs
// takes them: serve, devchain).
const (
	flagLogFormat = "log-format"
	flagLogLevel  = "log-level"
	flagVerbose   = "verbose"
)

// logLevelValue is --log-level: debug, info, warn or error.
type logLevelValue struct{ l slog.Level }

func (v *logLevelValue) String() string { return strings.ToLower(v.l.String()) }
func (v *logLevelValue) Type() string   { return "level" }
func (v *logLevelValue) Set(s string) error {
	switch strings.ToLower(s) {
	case "debug":
		v.l = slog.LevelDebug
	case "info":
		v.l = slog.LevelInfo
	case "warn", "warning":
		v.l = slog.LevelWarn
	case "error":
		v.l = slog.LevelError
	default:
		return fmt.Errorf("want debug, info, warn or error, got %q", s)
	}
	return nil
}

// logFormatValue is --log-format: text or json.
type logFormatValue struct{ f string }

func (v *logFormatValue) String() string { return v.f }
func (v *logFormatValue) Type() string   { return "format" }
func (v *logFormatValue) Set(s string) error {
	switch s = strings.ToLower(s); s {
	case "text", "json":
		v.f = s
		return nil
	}
	return fmt.Errorf("want text or json, got %q", s)
}

// registerLogFlags adds the logger flags to fs.
func registerLogFlags(fs *pflag.FlagSet) {
	fs.Var(&logFormatValue{"text"}, flagLogFormat, "log format: text (key=value) or json (one object a line)")
	fs.Var(&logLevelValue{slog.LevelInfo}, flagLogLevel, "least level logged: debug, info, warn or error")
	fs.BoolP(flagVerbose, "v", false, "debug logs (the same as --log-level debug)")
}

// logger returns the logger cmd's flags ask for, writing to stderr: text at
// info unless --log-format, --log-level or -v say otherwise (a command run
// without the root command, as tests do, gets the defaults).
func logger(cmd *cobra.Command) *slog.Logger { return newLogger(cmd, os.Stderr) }

func newLogger(cmd *cobra.Command, w io.Writer) *slog.Logger {
	level, format := slog.LevelInfo, "text"
	fs := cmd.Flags()
	if f := fs.Lookup(flagLogLevel); f != nil {
		if v, ok := f.Value.(*logLevelValue); ok {
			level = v.l
		}
	}
	if f := fs.Lookup(flagVerbose); f != nil && f.Changed && f.Value.String() == "true" {
		level = min(level, slog.LevelDebug)
	}
	if f := fs.Lookup(flagLogFormat); f != nil {
		format = f.Value.String()
	}
	opts := &slog.HandlerOptions{Level: level}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// logLimits logs, in one line, the limits that bound the node's throughput
// as it runs: its senders (one transaction in flight each), the allowed
// types, the in-process chain's block time and block size, the inclusion
// timeout, the confirmations (asking the chain for its declared reorg depth
// when they follow it) and the retries.
func logLimits(ctx context.Context, log *slog.Logger, n *node.Node) {
	c := n.Config
	senders := c.DevSenders + len(c.Senders)
	workers := 0
	for _, s := range c.Senders {
		if s.Worker != "" {
			workers++
		}
	}
	args := []any{"senders", senders, "workerSenders", workers, "allowedTypes", strings.Join(n.Sequencer.AllowedTypes(), ",")}
	if n.Devchain != nil {
		dc := n.Devchain.Config() // with its defaults
		args = append(args, "blockTime", dc.BlockTime.String(), "maxBlockTxs", dc.MaxBlockTxs)
	} else {
		args = append(args, "blockTime", "the remote chain's")
	}
	confirmations := any(c.Confirmations)
	if c.Confirmations == 0 {
		// Following the chain: its declared reorg depth + 1.
		confirmations = "the chain's reorg depth + 1"
		if hd, err := n.Chain.Head(ctx); err == nil {
			confirmations = hd.ReorgDepth + 1
		}
	}
	args = append(args, "inclusionTimeoutBlocks", c.InclusionTimeoutBlocks, "confirmations", confirmations,
		"maxRetries", c.MaxRetries, "retryDelay", time.Duration(c.RetryDelay).String(), "workerTimeout", time.Duration(c.WorkerTimeout).String())
	for _, t := range n.Sequencer.AllowedTypes() {
		if tc, ok := c.Types[t]; ok && (tc.MaxRetries != 0 || tc.RetryDelay != 0) {
			args = append(args, "types."+t, fmt.Sprintf("maxRetries=%d retryDelay=%s", cmp.Or(tc.MaxRetries, c.MaxRetries), time.Duration(cmp.Or(tc.RetryDelay, c.RetryDelay))))
		}
	}
	args = append(args, "chainTimeout", time.Duration(c.Health.ChainTimeout).String())
	log.Info("node limits (one transaction in flight per sender and per queue)", args...)
}
