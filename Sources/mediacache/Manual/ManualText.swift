/// The long description shown by `mediacache help TOPIC` and rendered into mediacache(1)
/// (`ManPage.finish` over `generate-manual`'s page): list format, cache layout, JSON
/// output, environment, files, exit codes and examples, kept beside the command
/// definitions they describe. Both renderings come from these values.
enum ManualText {
    static let overview = [
        """
        Downloads every URL of a list in parallel HTTP Range fragments, survives any \
        interruption (run the same command again, or `mediacache resume`), verifies each \
        file, stores MP4/MOV files with their moov first, and files everything into a \
        permanent cache that can be exported as one bundle for other machines.
        """,
        """
        Every command reads its defaults from the config file \
        ${XDG_CONFIG_HOME:-~/.config}/mediacache/config (see FILES); the command line wins.
        """,
    ]

    static let sections = [listFormat, streamingTitles, cacheLayout, jsonOutput, environment, files, exitStatus, examples, seeAlso]

    static let listFormat = ManualSection(
        "LIST FORMAT",
        [
            .text(
                """
                A subset of aria2's input file. A line starting with a URL begins an entry; \
                more URLs on the line (tab or space separated) are mirrors. Indented \
                key=value lines are options of the entry above; # starts a comment.
                """),
            .literal([
                "# comment",
                "https://cdn.example/a.mp4",
                "  out=intro.mp4",
                "  header=Authorization: Bearer abc",
                "https://mirror1/b.m4a\thttps://mirror2/b.m4a",
                "  cache-key=catalog/b",
            ]),
            .list([
                .init("out=NAME", .literal, "Display and export name, and the file's name in dir=, which may name folders inside it (Season 1/E01.mp4), never above it."),
                .init("dir=DIR", .literal, "Also put the finished file in DIR (as prefetch -d DIR does for every entry)."),
                .init("header=Name: value", .literal, "A request header (repeatable); sent to the entry's URLs (its mirrors too), never to another host after a redirect."),
                .init(
                    "checksum=sha-256=HEX", .literal,
                    "Also sha-512=, sha-384=, sha-224=, sha-1= and md5=, as in aria2; checked against the origin bytes."),
                .init(
                    "cache-key=KEY", .literal,
                    "The identity of the object, for URLs that carry expiring tokens."),
                .init(
                    "max-download-limit=SIZE", .literal,
                    "Bytes per second for this file, e.g. 500K (0: none); replaces --max-download-limit; --limit-rate still caps the whole run."),
                .init("user-agent=STRING", .literal, "Wins over --user-agent for this entry."),
                .init("referer=URL", .literal, "Wins over --referer for this entry (* means the entry's own URL)."),
                .init(
                    "all-proxy=URL", .literal,
                    "Wins over --proxy and the environment for this entry; empty: no proxy."),
                .init(
                    "max-height=PIXELS, max-bandwidth=RATE, all-variants=true, audio-lang=LANGS", .literal,
                    "For a streaming title: which renditions to fetch; each wins over its command-line option."),
            ]),
            .text(
                """
                CRLF line ends and a UTF-8 BOM are accepted. Lists are UTF-8, read line by \
                line: a comment may hold any bytes, and a line that is not UTF-8 is an error \
                for that line (and its entry) only. A URL's #fragment is dropped (it never \
                reaches the server). URLs longer than 64 KiB and lines longer than 256 KiB \
                are refused. A bad line is reported as file:line and the other entries still run.
                """),
            .text(
                """
                A list on standard input (-) or a pipe (<(cmd)) is read as it arrives, so \
                `cmd | mediacache prefetch -` starts each file as soon as its lines are \
                written (an entry is taken once the next line starts, or once the writer is \
                silent for a second after it: write an entry's lines together), and the run \
                ends at the end of its input. Ctrl-C stops the reading too: entries already \
                read are saved for resume, the rest of the input is not read.
                """),
        ])

    static let cacheLayout = ManualSection(
        "CACHE LAYOUT",
        [
            .list([
                .init("objects/ab/abcd...ext", .path, "Complete, verified, immutable objects."),
                .init("partial/<key>/", .path, "Data and state of downloads in progress (resumable)."),
                .init("partial/import-*", .path, "Objects being imported (gc removes those of killed imports)."),
                .init(
                    "runs/", .path,
                    "Entries interrupted runs never started (queue-*.jsonl, for resume) and the last run's failures (last-failures.json, for status); mode 0600."),
                .init("index.sqlite", .path, "The index of objects."),
                .init("locks/keys", .path, "Per-object locks (one byte each) shared by concurrent processes."),
                .init(
                    "tier/", .path,
                    "Objects still to be pushed to the fleet tier (pending/) and the state of multipart uploads to resume (uploads/)."),
                .init(
                    "serve/", .path,
                    "The secret that signs local URLs, the sources `url` registered (with their headers) and the running server's address; all mode 0600."),
            ]),
            .text(
                """
                The key is the SHA-256 of the cache key (the URL unless cache-key= says \
                otherwise). Directories are created 0700 and files 0600: saved state may hold headers.
                """),
        ])

    static let jsonOutput = ManualSection(
        "JSON OUTPUT",
        [
            .text(
                """
                With --json, output is JSON lines: one JSON object per line on stdout, \
                nothing else. ls --json prints one object per cached object and status \
                --json one per partial download, entry not started or failure of the last \
                run ("state": partial, queued, failed); for an empty cache they print nothing \
                at all. prefetch, resume and pull print events, each with "event" and "url", \
                most with "name" (the out= name, else the URL: what ls shows and path, info \
                and rm accept):
                """),
            .list([
                .init(
                    "started", .literal,
                    """
                    length, resumed_bytes, connections, source (origin or tier). For a streaming title \
                    also segments_done (held from an earlier run), segments_total, files_done, files_total.
                    """),
                .init(
                    "progress", .literal,
                    """
                    bytes_done, bytes_per_second, connections; at most twice a second per file. For a \
                    streaming title also segments_done, segments_total, files_done, files_total.
                    """),
                .init("moov-found", .literal, "offset, size, bytes_received"),
                .init("retry", .literal, "attempt, delay, reason"),
                .init("notice", .literal, "message"),
                .init("waiting", .literal, "reason"),
                .init("verified", .literal, "sha256"),
                .init("committed", .literal, "path, size, faststart"),
                .init("skipped", .literal, "path; already cached"),
                .init("saved", .literal, "path, method (linked, copied, already there): the file put in -d DIR or dir="),
                .init(
                    "failed", .literal,
                    """
                    code, reason. Codes: http-status, not-media, checksum-mismatch, \
                    retries-exhausted, origin-unstable, bad-response, redirect, bad-url, tls, proxy, io, tier, \
                    not-saved (cached, but not put in -d DIR). A streaming title's also has its \
                    counts and missing: by rendition, the segment numbers not held (runs such as \
                    "17-40") and the other files not held.
                    """),
                .init("summary", .literal, "the last event: files done, failed and already cached, bytes, time"),
            ]),
            .text(
                """
                With a tier, before the summary: pushed (key, sha256, size, uploaded: false when \
                the tier had it already), push-failed (reason), push-summary (uploaded, \
                bytes_uploaded, already_in_tier, failed, tier_unusable, interrupted), and once, without url, tier-unusable \
                (reason; the tier is not used for the rest of the run). push prints the push \
                events alone.
                """),
            .text(
                """
                A failed event without url means the run could not start: cache-unusable \
                (exit 3), file-limit (exit 3), bad-list (exit 2), tier-unusable (exit 1). \
                prefetch and resume always \
                end the stream with the summary, whatever the exit status, unless the command \
                line itself (or the config file) is rejected or stdout was closed.
                """),
        ])

    static let environment = ManualSection(
        "ENVIRONMENT",
        [
            .list([
                .init("MEDIACACHE_DIR", .variable, "The cache directory when --cache-dir is not given."),
                .init(
                    "XDG_CACHE_HOME", .variable,
                    "Else the cache is $XDG_CACHE_HOME/mediacache (~/.cache/mediacache)."),
                .init(
                    "XDG_CONFIG_HOME", .variable,
                    "The config file is $XDG_CONFIG_HOME/mediacache/config (~/.config/mediacache/config)."),
                .init(
                    "HOME", .variable,
                    """
                    Else $HOME/.cache/mediacache and $HOME/.config/mediacache/config. Empty \
                    variables count as unset; without HOME there is no default cache (exit 2) \
                    and no default config file.
                    """),
                .init("NO_COLOR", .variable, "Honoured; output has no colour either way."),
                .init(
                    "http_proxy", .variable,
                    "Proxy for http:// URLs when --proxy is not given (lowercase only: libcurl ignores HTTP_PROXY)."),
                .init("https_proxy", .variable, "Proxy for https:// URLs (also HTTPS_PROXY)."),
                .init("all_proxy", .variable, "Proxy for both when the one above is unset (also ALL_PROXY)."),
                .init("no_proxy", .variable, "Hosts reached without a proxy, unless --no-proxy is given (also NO_PROXY)."),
                .init("MEDIACACHE_TIER", .variable, "The fleet tier (s3://BUCKET/PREFIX) when --tier is not given."),
                .init("AWS_ENDPOINT_URL", .variable, "The tier's S3 endpoint when --s3-endpoint is not given."),
                .init(
                    "AWS_ACCESS_KEY_ID", .variable,
                    "With AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones): the tier's credentials, never printed."),
                .init("AWS_REGION", .variable, "The region requests to the tier are signed for (default us-east-1)."),
                .init(
                    "MEDIACACHE_BOOT_ID", .variable,
                    """
                    For tests: replaces the kernel's boot id, which decides whether a progress \
                    journal written before a crash is trusted (same boot only).
                    """),
            ])
        ])

    /// The config file's rules, also the discussion of `mediacache config`.
    static let configFile = """
        One setting a line: a long option without its dashes, = and the value \
        (jobs = 8, header = X-Team: media); a flag is its name alone (insecure). Lines \
        starting with # are comments and blank lines are ignored; the value is the rest of \
        the line, a # inside it included, used as written (no quotes, no ~ or $VAR \
        expansion). A setting applies to the commands \
        that take the option (jobs to prefetch and resume; ls ignores it) and counts as if \
        given before the command line's own arguments: a value on the command line replaces \
        the file's, repeatable options (header) add to the file's, and cache-dir in the file \
        wins over MEDIACACHE_DIR. A key no command takes, a flag with a value, an option \
        without one or a value the command refuses stops every command, naming file:line \
        (exit 2); config, no-config, help, version and arguments such as list cannot be set. --config FILE reads \
        another file (it must exist), --no-config none; a missing default file is fine. \
        mediacache config shows the file read and where each setting comes from.
        """

    static let files = ManualSection(
        "FILES",
        [
            .list([
                .init("${XDG_CONFIG_HOME:-~/.config}/mediacache/config", .path, configFile),
                .init(
                    "${XDG_CACHE_HOME:-~/.cache}/mediacache", .path,
                    "The cache, unless --cache-dir or MEDIACACHE_DIR says otherwise (see CACHE LAYOUT)."),
            ])
        ])

    static let exitStatus = ManualSection(
        "EXIT STATUS",
        [
            .list([
                .init("0", "Everything succeeded."),
                .init(
                    "1",
                    """
                    Some entries failed (each is named with its reason), the list had bad \
                    lines, a bundle entry was rejected, or verify found a bad object (even one --repair removed).
                    """),
                .init(
                    "2",
                    """
                    Usage or input error: a bad option or one out of its range, a bad config \
                    file line, an unreadable list, an unreadable cookie or netrc file, a bundle \
                    that is not a readable bundle, no HOME for the default cache directory, a \
                    --listen address serve cannot listen on (in use, not this machine's).
                    """),
                .init(
                    "3",
                    """
                    The cache could not be used (not a directory, I/O, index, read-only for \
                    commands that write; every command), or fewer than 32 file descriptors are \
                    allowed even after raising the soft limit to the hard limit (raise it with \
                    ulimit -n).
                    """),
                .init("129", "Interrupted by SIGHUP (terminal closed; progress is saved, as for SIGTERM)."),
                .init("130", "Interrupted by SIGINT (progress is saved; run the command again)."),
                .init(
                    "141",
                    """
                    Standard output was closed by its reader (e.g. piped into head): stopped \
                    like an interrupt, progress is saved.
                    """),
                .init("143", "Interrupted by SIGTERM."),
            ]),
            .text("Interrupted export and import remove their temporary files."),
        ])

    static let examples = ManualSection(
        "EXAMPLES",
        [
            .text("Download one file to a name of your own, as curl -o does (the cache keeps it too):"),
            .literal(["mediacache prefetch https://cdn.example/talk.mp4 -o talk.mp4"]),
            .text("Download a list, eight files at once over four connections each, with a token:"),
            .literal(["mediacache prefetch list.txt -j 8 -x 4 -H 'Authorization: Bearer TOKEN'"]),
            .text("Through a proxy, with the cookies a browser exported:"),
            .literal(["mediacache prefetch list.txt --proxy http://user:pw@proxy:3128 --load-cookies cookies.txt"]),
            .text("Play a cached file, see what is cached, keep the cache under 20 GB:"),
            .literal([
                "mpv \"$(mediacache path https://cdn.example/a.mp4)\"",
                "mediacache ls --sort used",
                "mediacache gc --max-size 20G --partial-older-than 7d",
            ]),
            .text("Play while it downloads: serve the cache, and open a local URL in any player (seeks included):"),
            .literal([
                "mediacache serve &",
                "mpv \"$(mediacache url https://cdn.example/talk.mp4)\"",
                "ffprobe \"$(mediacache url -H 'Authorization: Bearer TOKEN' https://drive.example/v.mp4)\"",
            ]),
            .text("Copy the cache to another machine:"),
            .literal(["mediacache export kiosk.mcbundle && mediacache import kiosk.mcbundle"]),
            .text("A config file, and what a run would take from it:"),
            .literal([
                "$ cat ~/.config/mediacache/config",
                "jobs = 8",
                "header = X-Team: media",
                "$ mediacache config prefetch -j 2 list.txt",
            ]),
        ])

    static let seeAlso = ManualSection("SEE ALSO", [.seeAlso([("aria2c", 1), ("curl", 1), ("mpv", 1)])])
}
