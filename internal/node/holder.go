package node

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// holderFile is the file in the data directory that keeps the node's
// lease holder id on a shared store, so that a node restarted on the same
// data directory (after a kill -9, say) is the same holder: it takes its
// own leases back at once (with new tokens) instead of waiting for them to
// expire as another holder would.
const holderFile = "lease-holder"

// newHolder is a fresh holder id: the host's name and a random suffix.
func newHolder() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "node"
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	return host + "-" + hex.EncodeToString(b[:])
}

// dataHolder returns the holder id kept in the data directory dir,
// creating it on the first start. Only the process holding the data
// directory's lock calls it, so no other process of the same id runs.
func dataHolder(dir string) (string, error) {
	path := filepath.Join(dir, holderFile)
	b, err := os.ReadFile(path)
	if err == nil {
		id := strings.TrimSpace(string(b))
		if id == "" || strings.ContainsAny(id, " \t\r\n") || len(id) > 200 {
			return "", fmt.Errorf("lease holder id in %s: want one word of at most 200 bytes, got %q", path, id)
		}
		return id, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("lease holder id: %w", err)
	}
	id := newHolder()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(id+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("lease holder id: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("lease holder id: %w", err)
	}
	return id, nil
}
