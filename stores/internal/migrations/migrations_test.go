package migrations

import (
	"testing"
	"testing/fstest"
)

func TestLoad(t *testing.T) {
	fsys := fstest.MapFS{
		"m/0002_b.sql": {Data: []byte("B")},
		"m/0001_a.sql": {Data: []byte("A")},
		"m/0010_c.sql": {Data: []byte("C")},
	}
	steps, err := Load(fsys, "m")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range steps {
		got = append(got, s.Name+"="+s.SQL)
	}
	want := []string{"0001_a.sql=A", "0002_b.sql=B", "0010_c.sql=C"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestLoadRejectsBadNames(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"no number":      {"m/init.sql": {}},
		"no underscore":  {"m/0001.sql": {}},
		"not sql":        {"m/0001_a.txt": {}},
		"duplicate":      {"m/0001_a.sql": {}, "m/1_b.sql": {}},
		"missing folder": {},
	} {
		if _, err := Load(fsys, "m"); err == nil {
			t.Errorf("%s: Load accepted it", name)
		}
	}
}
