package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ordolabs/ordo/internal/testkit/pgcluster"
)

// server is the PostgreSQL both contenders run on: a throwaway cluster or
// the server of --postgres.
type server struct {
	admin *url.URL     // a database to connect to for CREATE and DROP DATABASE
	stop  func() error // stops the throwaway cluster; nil for --postgres
}

// startServer starts a throwaway cluster (pgcluster.Start), or takes raw
// (--postgres) when set.
func startServer(ctx context.Context, raw string) (*server, error) {
	s := &server{}
	if raw == "" {
		var err error
		if raw, s.stop, err = pgcluster.Start(ctx); err != nil {
			return nil, err
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("--postgres: %w", err)
	}
	s.admin = u
	return s, nil
}

// close stops the throwaway cluster, if any.
func (s *server) close() {
	if s.stop == nil {
		return
	}
	if err := s.stop(); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
	}
}

// durability reads back the settings that make a commit durable.
func (s *server) durability(ctx context.Context) (string, error) {
	conn, err := pgx.Connect(ctx, s.admin.String())
	if err != nil {
		return "", fmt.Errorf("postgres: %w", err)
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	var version, fsync, syncCommit, fpw, walSync string
	for _, q := range []struct {
		sql string
		dst *string
	}{
		{`SHOW server_version`, &version},
		{`SHOW fsync`, &fsync},
		{`SHOW synchronous_commit`, &syncCommit},
		{`SHOW full_page_writes`, &fpw},
		{`SHOW wal_sync_method`, &walSync},
	} {
		if err := conn.QueryRow(ctx, q.sql).Scan(q.dst); err != nil {
			return "", fmt.Errorf("postgres: %s: %w", q.sql, err)
		}
	}
	where := "a throwaway cluster"
	if s.stop == nil {
		where = "the server of --postgres"
	}
	return fmt.Sprintf("postgres %s (%s): fsync=%s, synchronous_commit=%s, full_page_writes=%s, wal_sync_method=%s",
		version, where, fsync, syncCommit, fpw, walSync), nil
}

// createDB creates an empty database named prefix_<random> and returns its
// URL and a function that drops it.
func (s *server) createDB(ctx context.Context, prefix string) (string, func(), error) {
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := prefix + "_" + hex.EncodeToString(b[:])
	if err := s.exec(ctx, `CREATE DATABASE `+name); err != nil {
		return "", nil, fmt.Errorf("postgres: create database: %w", err)
	}
	u := *s.admin
	u.Path = "/" + name
	drop := func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := s.exec(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
			fmt.Fprintf(os.Stderr, "peers: drop database %s: %v\n", name, err)
		}
	}
	return u.String(), drop, nil
}

// exec runs one statement on the admin database.
func (s *server) exec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, s.admin.String())
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	_, err = conn.Exec(ctx, sql)
	return err
}
