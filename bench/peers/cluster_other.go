//go:build !linux

package main

import (
	"context"
	"errors"
	"net/url"
)

// The throwaway cluster runs on Linux only (initdb and postgres as an
// unprivileged user, with Linux process attributes); elsewhere pass
// --postgres URL.

type cluster struct{}

func findBin() (string, error) {
	return "", errors.New("the throwaway PostgreSQL cluster runs on Linux only: pass --postgres URL")
}

func startCluster(context.Context, string) (*cluster, error) { return nil, errors.ErrUnsupported }

func (c *cluster) url(string) *url.URL { return &url.URL{} }

func (c *cluster) stop() error { return nil }
