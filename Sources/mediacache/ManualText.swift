/// The long description shown by `mediacache --help` and rendered into mediacache(1)
/// (`swift package generate-manual`): list format, cache layout, exit codes,
/// environment and examples, kept beside the command definitions they describe.
enum ManualText {
    static let discussion = """
        Downloads every URL of a list in parallel HTTP Range fragments, survives any \
        interruption (run the same command again, or `mediacache resume`), verifies each \
        file, stores MP4/MOV files with their moov first, and files everything into a \
        permanent cache that can be exported as one bundle for other machines.
         LIST FORMAT
          A subset of aria2's input file. A line starting with a URL begins an entry; \
        more URLs on the line (tab or space separated) are mirrors. Indented key=value \
        lines are options of the entry above: out=NAME (display and export name, never a \
        path), header=Name: value (repeatable; sent only to that URL's host), \
        checksum=sha-256=HEX (also sha-1=, md5=; checked against the origin bytes), \
        cache-key=KEY (the identity of the object, for URLs that carry expiring tokens). \
        # starts a comment. CRLF line ends and a UTF-8 BOM are accepted. Lists are \
        UTF-8, read line by line: a comment may hold any bytes, and a line that is not \
        UTF-8 is an error for that line (and its entry) only. A URL's \
        #fragment is dropped (it never reaches the server). URLs longer than 64 KiB and \
        lines longer than 256 KiB are refused. A bad line is reported as file:line and \
        the other entries still run.
         CACHE LAYOUT
          objects/ab/abcd...ext   complete, verified, immutable objects
          partial/<key>/          data and state of downloads in progress (resumable)
          partial/import-*        objects being imported (gc removes those of killed imports)
          index.sqlite            the index of objects
          locks/keys              per-object locks (one byte each) shared by concurrent processes
         The key is the SHA-256 of the cache key (the URL unless cache-key= says otherwise). \
        Directories are created 0700 and files 0600: saved state may hold headers.
         EXIT STATUS
          0    everything succeeded
          1    some entries failed (each is named with its reason), the list had bad \
        lines, a bundle entry was rejected, or verify found a bad object
          2    usage or input error (bad option, unreadable list, a bundle that is not \
        a readable bundle, no HOME for the default cache directory)
          3    the cache could not be used (not a directory, I/O, index, read-only for \
        commands that write; every command), or fewer than 32 file descriptors are \
        allowed even after raising the soft limit to the hard limit (raise it with \
        ulimit -n)
          129  interrupted by SIGHUP (terminal closed; progress is saved, as for SIGTERM)
          130  interrupted by SIGINT (progress is saved; run the command again)
          141  standard output was closed by its reader (e.g. piped into head): \
        stopped like an interrupt, progress is saved
          143  interrupted by SIGTERM
         Interrupted export and import remove their temporary files.
         EVENTS (--json)
          One JSON object per line on stdout, each with "event" and "url": started \
        (length, resumed_bytes, connections), progress (bytes_done, bytes_per_second, \
        connections; at most twice a second per file), moov-found (offset, size, \
        bytes_received), retry (attempt, delay, reason), notice (message), waiting \
        (reason), verified (sha256), committed (path, size, faststart), skipped \
        (path; already cached), failed (code, reason), and a final summary. Failure \
        codes: http-status, not-media, checksum-mismatch, retries-exhausted, \
        origin-unstable, bad-response, redirect, bad-url, tls, io. A failed event without url \
        means the run could not start: cache-unusable (exit 3), file-limit (exit 3), \
        bad-list (exit 2). prefetch and resume always end the stream with the summary, \
        whatever the exit status, unless the command line itself is rejected or \
        stdout was closed.
         ENVIRONMENT
          MEDIACACHE_DIR     the cache directory when --cache-dir is not given
          XDG_CACHE_HOME     else the cache is $XDG_CACHE_HOME/mediacache (~/.cache/mediacache)
          HOME               else $HOME/.cache/mediacache; empty variables count as unset, \
        and without HOME there is no default (exit 2)
          NO_COLOR           honoured; output has no colour either way
          MEDIACACHE_BOOT_ID for tests: replaces the kernel's boot id, which decides \
        whether a progress journal written before a crash is trusted (same boot only)
         EXAMPLES
          mediacache prefetch list.txt
          mediacache prefetch list.txt -j 8 -x 4 -H 'Authorization: Bearer TOKEN'
          mpv "$(mediacache path https://cdn.example/a.mp4)"
          mediacache ls --sort used
          mediacache gc --max-size 20G
          mediacache gc --partial-older-than 7d
          mediacache export kiosk.mcbundle && mediacache import kiosk.mcbundle
        """
}
