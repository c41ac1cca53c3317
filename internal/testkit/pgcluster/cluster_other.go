//go:build !linux

package pgcluster

import (
	"errors"
	"net/url"
)

// The throwaway cluster runs on Linux only (it runs initdb and postgres as
// an unprivileged user with Linux process attributes); elsewhere the tests
// use ORDO_TEST_POSTGRES, or skip.

// errNoCluster: no throwaway cluster on this system.
var errNoCluster = errors.New("pgcluster: the throwaway PostgreSQL cluster runs on Linux only; set ORDO_TEST_POSTGRES")

// Cluster is never started here.
type Cluster struct{}

func FindBin() (string, error) { return "", errNoCluster }

func New(string, bool) (*Cluster, error) { return nil, errNoCluster }

func (c *Cluster) URL(string) *url.URL { return &url.URL{} }

func (c *Cluster) Stop() error { return nil }

func StopOnSignal(func() *Cluster) {}
