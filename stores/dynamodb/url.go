package dynamodb

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/mcptasks/mcptasks/internal/redact"
	"github.com/mcptasks/mcptasks/tasks"
)

var tableNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{3,255}$`)

// OpenURL opens a store from a URL of the form
//
//	dynamodb://TABLE?endpoint=URL&region=REGION&create=1&native_ttl=0
//
// endpoint points at a DynamoDB-compatible server (dynalite, DynamoDB
// Local); without it the AWS SDK's usual configuration and credentials
// apply. region defaults to us-east-1 with an endpoint and to the AWS
// configuration without. create=1 creates the table (EnsureTable); without
// it the table must exist and is checked (CheckTable). native_ttl=0 keeps
// create from enabling DynamoDB's TTL.
func OpenURL(ctx context.Context, spec string, cfg tasks.Config) (_ *Store, err error) {
	// An endpoint may carry credentials: errors never show them.
	defer func() { err = redact.Error(err, spec) }()
	u, err := url.Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("dynamodb: store URL %q: %w", spec, err)
	}
	if u.Scheme != "dynamodb" {
		return nil, fmt.Errorf("dynamodb: store URL %q: scheme must be dynamodb://", spec)
	}
	table := u.Host
	if table == "" || (u.Path != "" && u.Path != "/") || u.User != nil {
		return nil, fmt.Errorf("dynamodb: store URL %q: want dynamodb://TABLE?endpoint=URL&region=REGION", spec)
	}
	if !tableNameRE.MatchString(table) {
		return nil, fmt.Errorf("dynamodb: store URL %q: table name %q must be 3-255 letters, digits, '_', '-' or '.'", spec, table)
	}
	var (
		cc     ClientConfig
		create bool
		opts   []Option
	)
	for k, vs := range u.Query() {
		v := vs[len(vs)-1]
		switch k {
		case "endpoint":
			e, err := url.Parse(v)
			if err != nil || (e.Scheme != "http" && e.Scheme != "https") || e.Host == "" {
				return nil, fmt.Errorf("dynamodb: store URL %q: endpoint %q must be an http:// or https:// URL", spec, v)
			}
			cc.Endpoint = v
		case "region":
			cc.Region = v
		case "create", "native_ttl":
			on, ok := boolParam(v)
			if !ok {
				return nil, fmt.Errorf("dynamodb: store URL %q: %s=%q: want 1 or 0", spec, k, v)
			}
			if k == "create" {
				create = on
			} else {
				opts = append(opts, WithNativeTTL(on))
			}
		default:
			return nil, fmt.Errorf("dynamodb: store URL %q: unknown parameter %q (known: endpoint, region, create, native_ttl)", spec, k)
		}
	}
	client, err := NewClient(ctx, cc)
	if err != nil {
		return nil, err
	}
	s, err := Open(ctx, client, table, cfg, opts...)
	if err != nil {
		return nil, err
	}
	if create {
		err = s.EnsureTable(ctx)
	} else {
		err = s.CheckTable(ctx)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

func boolParam(v string) (on, ok bool) {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true, true
	case "0", "false", "no", "off":
		return false, true
	}
	return false, false
}
