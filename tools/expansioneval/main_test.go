package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// miniWordNet writes a WordNet database in the dictionary's file format:
// data.noun lines found by byte offset from index.noun.
func miniWordNet(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	header := "  1 This software and database is being provided to you, the LICENSEE\n"
	synsets := []string{
		"02084071 05 n 03 dog 0 domestic_dog 0 Canis_familiaris 0 000 | a member of the genus Canis\n",
		"10114209 18 n 02 frump 0 dog 0 000 | a dull unattractive unpleasant girl or woman\n",
		"02085374 05 n 02 puppy 0 pup 0 000 | a young dog\n",
	}
	data := header
	offsets := make([]int, len(synsets))
	for i, s := range synsets {
		offsets[i] = len(data)
		data += s
	}
	index := header +
		fmt.Sprintf("dog n 2 1 @ 2 1 %08d %08d  \n", offsets[0], offsets[1]) +
		fmt.Sprintf("puppy n 1 0 1 1 %08d  \n", offsets[2])
	for name, body := range map[string]string{"data.noun": data, "index.noun": index,
		"data.verb": header, "index.verb": header, "data.adj": header, "index.adj": header, "data.adv": header, "index.adv": header} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestWordNetRephrase(t *testing.T) {
	wn, err := loadWordNet(miniWordNet(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := wn["dog"]; !slices.Equal(got, []string{"domestic dog", "canis familiaris", "frump"}) {
		t.Fatalf("dog = %q", got)
	}
	if wn.lemma("puppies") != "puppy" || wn.lemma("dogs") != "dog" || wn.lemma("cats") != "cats" {
		t.Fatalf("lemma: %q %q %q", wn.lemma("puppies"), wn.lemma("dogs"), wn.lemma("cats"))
	}
	got := wn.rephrase("What breed is my Dog's puppies?")
	want := []string{"what breed is my dog's pup", "breed dog's puppies", "what breed is my dog's puppies"}
	if !slices.Equal(got, want) {
		t.Fatalf("rephrase = %q, want %q", got, want)
	}
	if _, err := loadWordNet(t.TempDir()); err == nil || !strings.Contains(err.Error(), "wordnet-base") {
		t.Fatalf("missing WordNet: %v", err)
	}
}

func TestScriptedModels(t *testing.T) {
	wn, err := loadWordNet(miniWordNet(t))
	if err != nil {
		t.Fatal(err)
	}
	s := &scripted{wn: wn, others: []string{"dog food", "cat toys", "bird seed"}, oracle: map[string]string{"dog food": "Kibble"}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	ask := func(model, q string) (int, []string) {
		body := fmt.Sprintf(`{"model":%q,"messages":[{"role":"user","content":%q}]}`, model, q)
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r struct {
			Choices []struct{ Message struct{ Content string } }
		}
		if resp.StatusCode != 200 {
			return resp.StatusCode, nil
		}
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			t.Fatal(err)
		}
		var out []string
		if err := json.Unmarshal([]byte(r.Choices[0].Message.Content), &out); err != nil {
			t.Fatal(err)
		}
		return 200, out
	}
	if _, v := ask("scripted-oracle", "dog food"); !slices.Equal(v, []string{"Kibble"}) {
		t.Errorf("oracle = %q", v)
	}
	if _, v := ask("scripted-noise", "dog food"); len(v) == 0 || slices.Contains(v, "dog food") {
		t.Errorf("noise = %q", v)
	}
	if _, v := ask("scripted-wordnet", "dog food"); len(v) != 3 || v[0] != "domestic dog food" {
		t.Errorf("wordnet = %q", v)
	}
	if code, _ := ask("gpt-4o", "dog food"); code != http.StatusNotFound {
		t.Errorf("unknown model answered %d", code)
	}
}
