package ingest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/pgbrain/pgbrain/internal/shellquote"
)

// MaxFileBytes is the largest file an import reads: the pages table refuses
// a body over 10 MiB, so a larger file is refused from its size alone,
// before it is read, parsed or chunked.
const MaxFileBytes = 10 << 20

// MaxTitleChars is the longest page title, in characters, the pages table
// accepts.
const MaxTitleChars = 1000

// Skipped names an entry below the imported directory that was not walked
// or not read, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// walkFile is one markdown file the walk found.
type walkFile struct {
	rel  string // '/'-separated, relative to the imported directory
	abs  string // how to open it (through the symlinks the walk followed)
	size int64  // from stat, so an oversized file is refused unread
}

// walkResult is everything below an imported directory.
type walkResult struct {
	files   []walkFile // sorted by rel, byte order
	skipped []Skipped  // sorted by path
	// notMarkdown counts the regular files left out for not ending in .md
	// (hidden ones not counted): named in a summary that imported nothing.
	notMarkdown int
	// incomplete is set when an entry that may hold pages could not be
	// walked (an unreadable directory, a broken symlink, an unreadable
	// .md entry): pages whose files were not seen must not be pruned.
	incomplete bool
}

// walker walks a directory tree. Real directories are walked first, then
// symlinked ones, and every directory (by device and inode) at most once:
// a symlink to a directory already walked, such as a loop back to an
// ancestor, is reported and not followed again.
type walker struct {
	res     walkResult
	visited map[devIno]string // directory -> the relative path it was walked as
	links   []pendingLink     // symlinks to directories, walked after the real tree
	avoid   []string          // folders not entered through a symlink (walkDir)
	// root is the imported directory, absolute with symlinks resolved
	// ("" when that failed): a link to a folder holding it is not followed.
	root string
}

type devIno struct{ dev, ino uint64 }

type pendingLink struct {
	abs, rel string
	info     fs.FileInfo
}

// walkDir lists the markdown files below root. root itself may be a
// symlink; it is followed. Hidden entries (names starting with '.') are
// left out silently, as are files that are not markdown; everything else
// that is not imported is named in the result. A symlink inside that
// leads into, or to a folder holding, one of the avoid folders (absolute,
// symlinks resolved: the other folders the source was imported from) is
// not followed and is named: its files are pages there already, and would
// be stored a second time under this folder's slugs.
func walkDir(root string, avoid ...string) (walkResult, error) {
	st, err := os.Stat(root)
	if err != nil {
		if target, lerr := os.Readlink(root); lerr == nil {
			// A link to a folder that is gone (an unmounted disk).
			return walkResult{}, fmt.Errorf("import directory %s is a symlink to %s, which cannot be read (%s): mount or restore it, or import the folder itself", root, target, errText(err))
		}
		return walkResult{}, fmt.Errorf("import directory: %w", err)
	}
	if !st.IsDir() {
		return walkResult{}, fmt.Errorf("import directory %s is not a directory; to add one file, use: pgbrain put SLUG < %s", root, shellquote.Quote(root))
	}
	w := &walker{visited: map[devIno]string{}, avoid: avoid}
	if a, err := filepath.Abs(root); err == nil {
		if r, err := filepath.EvalSymlinks(a); err == nil {
			w.root = r
		}
	}
	if id, ok := fileID(st); ok {
		w.visited[id] = "."
	}
	w.dir(root, "")
	for len(w.links) > 0 {
		// Links found inside linked directories join the queue; sorting
		// each round keeps the outcome independent of directory order.
		sort.Slice(w.links, func(i, j int) bool { return w.links[i].rel < w.links[j].rel })
		l := w.links[0]
		w.links = w.links[1:]
		w.enter(l.abs, l.rel, l.info)
	}
	sort.Slice(w.res.files, func(i, j int) bool { return w.res.files[i].rel < w.res.files[j].rel })
	sort.Slice(w.res.skipped, func(i, j int) bool { return w.res.skipped[i].Path < w.res.skipped[j].Path })
	return w.res, nil
}

func (w *walker) skip(rel, reason string, incomplete bool) {
	if rel == "" {
		rel = "."
	}
	w.res.skipped = append(w.res.skipped, Skipped{Path: rel, Reason: reason})
	w.res.incomplete = w.res.incomplete || incomplete
}

// enter walks a directory unless it was walked already.
func (w *walker) enter(abs, rel string, info fs.FileInfo) {
	if id, ok := fileID(info); ok {
		if prev, seen := w.visited[id]; seen {
			w.skip(rel, fmt.Sprintf("directory already walked as %q (a symlink loop or a second link to it); each directory is imported once", prev), false)
			return
		}
		w.visited[id] = rel
	}
	w.dir(abs, rel)
}

func (w *walker) dir(abs, rel string) {
	entries, err := os.ReadDir(abs)
	if err != nil {
		// ReadDir returns what it read before the error; those entries
		// are still walked, but the directory counts as incomplete.
		w.skip(rel, fmt.Sprintf("cannot read directory (%s); files below it were not imported, and the import will not prune", errText(err)), true)
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		crel := path.Join(rel, name)
		cabs := filepath.Join(abs, name)
		switch t := e.Type(); {
		case t.IsDir():
			info, err := os.Stat(cabs)
			if err != nil {
				w.skip(crel, fmt.Sprintf("cannot stat directory (%s)", errText(err)), true)
				continue
			}
			w.enter(cabs, crel, info)
		case t&fs.ModeSymlink != 0:
			w.symlink(cabs, crel)
		case t.IsRegular():
			if !isMarkdown(name) {
				w.res.notMarkdown++
				continue
			}
			info, err := e.Info()
			if err != nil {
				w.skip(crel, fmt.Sprintf("cannot stat file (%s)", errText(err)), true)
				continue
			}
			w.res.files = append(w.res.files, walkFile{rel: crel, abs: cabs, size: info.Size()})
		default:
			w.skip(crel, kindName(t)+"; only regular files and directories are imported", isMarkdown(name))
		}
	}
}

// symlink follows a link: a link to a file is imported under the link's
// own name, a link to a directory is queued (see walker).
func (w *walker) symlink(abs, rel string) {
	info, err := os.Stat(abs)
	if err != nil {
		target, _ := os.Readlink(abs)
		reason := fmt.Sprintf("broken symlink to %q (%s)", target, errText(err))
		if errors.Is(err, syscall.ELOOP) {
			reason = fmt.Sprintf("symlink loop through %q", target)
		}
		// A link whose target is gone may have been a directory of pages;
		// only a link with some other extension is known to hold none.
		ext := path.Ext(rel)
		w.skip(rel, reason, ext == "" || isMarkdown(rel))
		return
	}
	if info.IsDir() || (info.Mode().IsRegular() && isMarkdown(rel)) {
		if reason := w.avoided(abs, info.IsDir()); reason != "" {
			w.skip(rel, reason, false)
			return
		}
	}
	switch {
	case info.IsDir():
		if target := w.holdsRoot(abs); target != "" {
			// Its other folders lie outside the one imported ("notes/up ->
			// .." would import every folder beside notes); the root itself
			// is walked already.
			w.skip(rel, fmt.Sprintf("symlink to %s, which holds the imported folder: following it would import files from outside it", target), false)
			return
		}
		w.links = append(w.links, pendingLink{abs: abs, rel: rel, info: info})
	case info.Mode().IsRegular():
		if isMarkdown(rel) {
			w.res.files = append(w.res.files, walkFile{rel: rel, abs: abs, size: info.Size()})
		}
	default:
		w.skip(rel, "symlink to a "+kindName(info.Mode().Type())+"; only regular files and directories are imported", isMarkdown(rel))
	}
}

// holdsRoot returns the resolved target of the directory symlink abs when
// it is an ancestor of the imported directory, else "".
func (w *walker) holdsRoot(abs string) string {
	if w.root == "" {
		return ""
	}
	a, err := filepath.Abs(abs)
	if err != nil {
		return ""
	}
	target, err := filepath.EvalSymlinks(a)
	if err != nil {
		return ""
	}
	if _, in := within(w.root, target); in {
		return target
	}
	return ""
}

// avoided says why the symlink abs is not followed, or "" when it may be:
// its target lies in, is, or (a directory) holds one of w.avoid. A file is
// avoided only when the other folder's import read it, as markdown.
// Folders are compared by path: a bind mount of another folder is not
// recognised.
func (w *walker) avoided(abs string, dir bool) string {
	if len(w.avoid) == 0 {
		return ""
	}
	// Absolute before resolving: a relative link below a folder named
	// relatively ("import journal") resolves to a relative path, which
	// no recorded folder would equal.
	a, err := filepath.Abs(abs)
	if err != nil {
		return ""
	}
	target, err := filepath.EvalSymlinks(a)
	if err != nil {
		return ""
	}
	for _, r := range w.avoid {
		rel, in := within(target, r)
		if !dir && in && !hidden(rel) && isMarkdown(target) {
			return fmt.Sprintf("symlink to %s, a file of %s, a folder this source was imported from: it is a page there already; import with --nested to store it here too", target, r)
		}
		if dir && (target == r || (in && !hidden(rel))) {
			return fmt.Sprintf("symlink into %s, a folder this source was imported from: its files are pages there already; import with --nested to store them here too", r)
		}
		if rel, holds := within(r, target); dir && holds && !hidden(rel) {
			return fmt.Sprintf("symlink to %s, which holds %s, a folder this source was imported from: its files would be stored a second time; import with --nested to follow it", target, r)
		}
	}
	return ""
}

func isMarkdown(name string) bool { return strings.EqualFold(path.Ext(name), ".md") }

func kindName(t fs.FileMode) string {
	switch {
	case t&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case t&fs.ModeSocket != 0:
		return "socket"
	case t&fs.ModeDevice != 0:
		return "device"
	default:
		return "special file (" + t.String() + ")"
	}
}

// errText is the error without the path, which the report already names.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func fileID(info fs.FileInfo) (devIno, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return devIno{}, false
	}
	return devIno{dev: uint64(st.Dev), ino: uint64(st.Ino)}, true
}

// readFile reads a walked file, refusing it unread when its stat size is
// over MaxFileBytes and refusing it when it grew past it since.
func readFile(f walkFile) ([]byte, error) {
	if f.size > MaxFileBytes {
		return nil, fmt.Errorf("file is %d bytes, over the limit of %d bytes (10 MiB) for a page; it was not read: split it into smaller files", f.size, MaxFileBytes)
	}
	fh, err := os.Open(f.abs)
	if err != nil {
		return nil, fmt.Errorf("reading: %w", err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading: %w", err)
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("file grew past the limit of %d bytes (10 MiB) for a page while it was read; split it into smaller files", MaxFileBytes)
	}
	return data, nil
}
