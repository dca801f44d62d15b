package dynamodb_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/mcptasks/mcptasks/stores/dynamodb"
	"github.com/mcptasks/mcptasks/tasks"
)

const deployDir = "../../deploy/dynamodb"

// cfnTable is the part of the CloudFormation template the store depends on.
type cfnTable struct {
	Type       string
	Properties struct {
		BillingMode            string
		AttributeDefinitions   []struct{ AttributeName, AttributeType string }
		KeySchema              []struct{ AttributeName, KeyType string }
		GlobalSecondaryIndexes []struct {
			IndexName  string
			KeySchema  []struct{ AttributeName, KeyType string }
			Projection struct {
				ProjectionType   string
				NonKeyAttributes []string
			}
		}
		TimeToLiveSpecification struct {
			AttributeName string
			Enabled       bool
		}
	}
}

func loadTemplate(t *testing.T) cfnTable {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(deployDir, "cloudformation.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tpl struct{ Resources map[string]cfnTable }
	if err := json.Unmarshal(b, &tpl); err != nil {
		t.Fatalf("cloudformation.json: %v", err)
	}
	var tables []cfnTable
	for _, r := range tpl.Resources {
		if r.Type == "AWS::DynamoDB::Table" {
			tables = append(tables, r)
		}
	}
	if len(tables) != 1 {
		t.Fatalf("cloudformation.json declares %d tables, want 1", len(tables))
	}
	return tables[0]
}

// templateInput turns the template's table into the CreateTable request it
// stands for.
func templateInput(tb cfnTable, name string) *ddb.CreateTableInput {
	p := tb.Properties
	in := &ddb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingMode(p.BillingMode)}
	for _, a := range p.AttributeDefinitions {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{
			AttributeName: aws.String(a.AttributeName), AttributeType: types.ScalarAttributeType(a.AttributeType)})
	}
	for _, k := range p.KeySchema {
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String(k.AttributeName), KeyType: types.KeyType(k.KeyType)})
	}
	for _, g := range p.GlobalSecondaryIndexes {
		gsi := types.GlobalSecondaryIndex{IndexName: aws.String(g.IndexName),
			Projection: &types.Projection{ProjectionType: types.ProjectionType(g.Projection.ProjectionType),
				NonKeyAttributes: g.Projection.NonKeyAttributes}}
		for _, k := range g.KeySchema {
			gsi.KeySchema = append(gsi.KeySchema, types.KeySchemaElement{AttributeName: aws.String(k.AttributeName), KeyType: types.KeyType(k.KeyType)})
		}
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, gsi)
	}
	return in
}

// layout is a comparable summary of a table definition.
type layout struct {
	Billing    string
	Attributes []string // "name:type", sorted
	Keys       []string // "name:type" in order
	Indexes    []string // "index:name:type,...:projection", sorted
}

func layoutOf(in *ddb.CreateTableInput) layout {
	var l layout
	l.Billing = string(in.BillingMode)
	for _, a := range in.AttributeDefinitions {
		l.Attributes = append(l.Attributes, aws.ToString(a.AttributeName)+":"+string(a.AttributeType))
	}
	slices.Sort(l.Attributes)
	keys := func(ks []types.KeySchemaElement) []string {
		var out []string
		for _, k := range ks {
			out = append(out, aws.ToString(k.AttributeName)+":"+string(k.KeyType))
		}
		return out
	}
	l.Keys = keys(in.KeySchema)
	for _, g := range in.GlobalSecondaryIndexes {
		s := aws.ToString(g.IndexName)
		for _, k := range keys(g.KeySchema) {
			s += ":" + k
		}
		nk := slices.Sorted(slices.Values(g.Projection.NonKeyAttributes))
		l.Indexes = append(l.Indexes, s+":"+string(g.Projection.ProjectionType)+fmt.Sprint(nk))
	}
	slices.Sort(l.Indexes)
	return l
}

// TestCloudFormationMatchesEnsureTable: the template declares the same
// keys, attributes, index and TTL attribute as EnsureTable creates.
func TestCloudFormationMatchesEnsureTable(t *testing.T) {
	tpl := loadTemplate(t)
	got, want := layoutOf(templateInput(tpl, "x")), layoutOf(dynamodb.TableDefinition("x"))
	if !slices.Equal(got.Attributes, want.Attributes) || !slices.Equal(got.Keys, want.Keys) ||
		!slices.Equal(got.Indexes, want.Indexes) || got.Billing != want.Billing {
		t.Fatalf("cloudformation.json layout\n got %+v\nwant %+v", got, want)
	}
	ttl := tpl.Properties.TimeToLiveSpecification
	if ttl.AttributeName != dynamodb.AttrExpiresAt || !ttl.Enabled {
		t.Fatalf("TTL = %+v, want enabled on %s", ttl, dynamodb.AttrExpiresAt)
	}
}

// TestTemplateTableServesStore: a table made from the template on the test
// server passes CheckTable and EnsureTable and serves the store.
func TestTemplateTableServesStore(t *testing.T) {
	c, _ := client(t)
	ctx := ctxT(t)
	name := tableName(t)
	if _, err := c.CreateTable(ctx, templateInput(loadTemplate(t), name)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = c.DeleteTable(context.Background(), &ddb.DeleteTableInput{TableName: &name}) })
	s, err := dynamodb.Open(ctx, c, name, tasks.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.EnsureTable(ctx); err != nil {
		t.Fatalf("EnsureTable on the template's table: %v", err)
	}
	r, err := s.Create(ctx, "o", tasks.CreateParams{})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := s.List(ctx, "o", tasks.ListOptions{}); err != nil || len(p.Tasks) != 1 || p.Tasks[0].ID != r.ID {
		t.Fatalf("list = %+v, %v", p, err)
	}
}

// quoted returns the strings of a Terraform list body like `"a", "b"`.
func quoted(list string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`"([^"]*)"`).FindAllStringSubmatch(list, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestTerraformMatchesEnsureTable reads the Terraform module's table
// resource (plain pattern matching: the module is small and flat) and
// compares it with EnsureTable's definition.
func TestTerraformMatchesEnsureTable(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(deployDir, "terraform", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	one := func(re string) string {
		t.Helper()
		m := regexp.MustCompile(re).FindAllStringSubmatch(src, -1)
		if len(m) != 1 {
			t.Fatalf("main.tf: %d matches of %s, want 1", len(m), re)
		}
		return m[0][1]
	}
	tf := &ddb.CreateTableInput{
		BillingMode: types.BillingMode(one(`(?m)^\s*billing_mode\s*=\s*"([^"]+)"`)),
		KeySchema:   []types.KeySchemaElement{{AttributeName: aws.String(one(`(?m)^  hash_key\s*=\s*"([^"]+)"`)), KeyType: types.KeyTypeHash}},
	}
	for _, m := range regexp.MustCompile(`attribute\s*\{\s*name\s*=\s*"([^"]+)"\s*type\s*=\s*"([^"]+)"\s*\}`).FindAllStringSubmatch(src, -1) {
		tf.AttributeDefinitions = append(tf.AttributeDefinitions, types.AttributeDefinition{
			AttributeName: aws.String(m[1]), AttributeType: types.ScalarAttributeType(m[2])})
	}
	gsi := regexp.MustCompile(`global_secondary_index\s*\{\s*name\s*=\s*"([^"]+)"\s*hash_key\s*=\s*"([^"]+)"\s*range_key\s*=\s*"([^"]+)"\s*projection_type\s*=\s*"([^"]+)"\s*(?:non_key_attributes\s*=\s*\[([^\]]*)\]\s*)?\}`).FindAllStringSubmatch(src, -1)
	for _, m := range gsi {
		tf.GlobalSecondaryIndexes = append(tf.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName: aws.String(m[1]),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String(m[2]), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String(m[3]), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionType(m[4]), NonKeyAttributes: quoted(m[5])},
		})
	}
	got, want := layoutOf(tf), layoutOf(dynamodb.TableDefinition("x"))
	if !slices.Equal(got.Attributes, want.Attributes) || !slices.Equal(got.Keys, want.Keys) ||
		!slices.Equal(got.Indexes, want.Indexes) || got.Billing != want.Billing {
		t.Fatalf("terraform layout\n got %+v\nwant %+v", got, want)
	}
	if ttl := one(`ttl\s*\{\s*attribute_name\s*=\s*"([^"]+)"\s*enabled\s*=\s*true\s*\}`); ttl != dynamodb.AttrExpiresAt {
		t.Fatalf("terraform TTL attribute %q, want %q", ttl, dynamodb.AttrExpiresAt)
	}
}
