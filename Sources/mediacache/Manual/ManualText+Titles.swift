extension ManualText {
    static let streamingTitles = ManualSection(
        "STREAMING TITLES",
        [
            .text(
                """
                A URL that answers with an HLS playlist (its Content-Type, or a body that starts \
                with #EXTM3U; no .m3u8 needed) or a static DASH MPD (application/dash+xml, or an \
                XML body whose root is MPD) is cached as one title: the media playlists, init \
                sections, segments, byte-range files and AES-128 keys of the chosen renditions, \
                stored as served, fetched 16 at once (or -x when given) in presentation order, and committed \
                whole. By default: the variant with the highest BANDWIDTH, its DEFAULT or \
                AUTOSELECT audio, every subtitle rendition (for DASH: the best video \
                representation, the main audio set's best, every text set). --max-height, --max-bandwidth, \
                --all-variants and --audio-lang choose otherwise (and max-height=, max-bandwidth=, \
                all-variants=, audio-lang= for one entry).
                """),
            .literal([
                "mediacache prefetch https://cdn.example/show/master.m3u8",
                "mpv \"$(mediacache path https://cdn.example/show/master.m3u8)\"",
            ]),
            .text(
                """
                path prints the title's local master playlist (index.m3u8) or MPD (index.mpd), \
                whose URIs are all relative: \
                ffmpeg, mpv and VLC play it offline. A variant listed again at another URL (an HLS \
                backup stream, with audio groups of its own or not) and several DASH BaseURLs \
                are copies of the title on other servers: a segment that fails on the copy in \
                use (at once for 404, after two failures for 503 or a dead server) moves the \
                title to the next copy, matched by place; init sections and keys are checked \
                there, and a copy cut differently is not used. A segment that cannot be had \
                fails the title and names it; what was fetched is kept and the next run fetches \
                only the rest, even when the URLs carry new tokens. A playlist or MPD sent \
                gzipped (Content-Encoding: gzip, as S3 serves one stored so) is decoded. Live \
                playlists and DRM are refused with a message.
                """),
            .text(
                """
                A title is one object for ls, verify, rm and gc, and it travels whole. export \
                writes its title.json and every file under objects/KEY.title/ in the bundle; \
                import checks title.json against the bundle's manifest and every file against \
                title.json, and adds the title in one step, or nothing of it, naming the file \
                that is missing, extra or altered. push sends a title to the tier as one object, \
                PREFIX/titles/SHA256 (title.json followed by every file it lists, named by \
                title.json's SHA-256), rather than one object per segment; pull brings it back \
                checked file by file and adds it in one step, and so does prefetch --tier \
                before asking the origin (a copy that fails its check is dropped, and the \
                title comes from the origin). A pull that is stopped (Ctrl-C, kill -9) keeps \
                the files it wrote under partial/KEY.title/pull/, and the next pull or \
                prefetch --tier of the title, or resume with a tier named, hashes them again \
                and fetches only the rest.
                """),
            .text(
                """
                Under serve, mediacache url URL prints the title's local URL: its playlist or MPD \
                as stored, whose relative URIs lead to each file of the title under the same \
                signed path, with ranges; paths that are not the title's answer 404. Players, \
                ffmpeg and the status page (where the browser plays HLS itself) play it from \
                there. A title not cached yet plays while it downloads: its playlist answers once \
                read, and a file a player asks for is fetched ahead of the rest and sent as its bytes land. \
                With --tier it also plays while its pack is pulled: the playlists and keys are \
                read from the pack first, then a file a player asks for, sent as its bytes land.
                """),
            .literal([
                "mediacache serve &",
                "mpv \"$(mediacache url https://cdn.example/show/master.m3u8)\"",
            ]),
        ])
}
