//go:build !linux

package pgtest

import (
	"errors"
	"net/url"
	"sync"
)

// The throwaway cluster runs on Linux only (it runs initdb and postgres as
// an unprivileged user with Linux process attributes); elsewhere the tests
// use ORDO_TEST_POSTGRES, or skip.

// errNoCluster: no throwaway cluster on this system.
var errNoCluster = errors.New("pgtest: the throwaway PostgreSQL cluster runs on Linux only; set ORDO_TEST_POSTGRES")

// cluster is never started here.
type cluster struct{}

var (
	runningMu sync.Mutex
	running   *cluster // always nil here
)

func findBin() (string, error) { return "", errNoCluster }

func startCluster(string) (*cluster, error) { return nil, errNoCluster }

func (c *cluster) url(string) *url.URL { return &url.URL{} }

func (c *cluster) stop() error { return nil }

func stopOnSignal() {}
