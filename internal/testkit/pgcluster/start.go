package pgcluster

import (
	"context"
	"fmt"
	"os"
)

// EnvURL names the environment variable holding an existing server's URL
// (the tests' and Start's: nothing is started then).
const EnvURL = "ORDO_TEST_POSTGRES"

// Start starts a durable throwaway cluster of its own (initdb into a
// temporary directory, a free loopback port, fsync, synchronous_commit and
// full_page_writes on, run as "nobody" when root), for a program that is
// not a test (a benchmark). With ORDO_TEST_POSTGRES set it starts nothing
// and returns that URL. url names the cluster's "postgres" database; stop
// shuts the cluster down and removes its directory. Start needs no
// testing.TB and leaves URL, URLFor and Main's shared cluster alone.
func Start(ctx context.Context) (url string, stop func() error, err error) {
	if raw := os.Getenv(EnvURL); raw != "" {
		return raw, func() error { return nil }, nil
	}
	if err := ctx.Err(); err != nil {
		return "", nil, err
	}
	bin, err := FindBin()
	if err != nil {
		return "", nil, fmt.Errorf("pgcluster: %w", err)
	}
	c, err := New(bin, true)
	if err != nil {
		return "", nil, err
	}
	return c.URL("postgres").String(), c.Stop, nil
}
