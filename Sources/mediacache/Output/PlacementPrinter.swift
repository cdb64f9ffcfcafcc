import MediaCacheKit

/// Says where `-d DIR` (or `dir=`) put each finished file: `saved    PATH` above the
/// progress lines, or a `saved` event with `--json`; a file that could not be put there
/// is a FAILED line (and a `failed` event with code `not-saved`).
enum PlacementPrinter {
    static func reporter(json: Bool, quiet: Bool, printer: EventPrinter)
        -> @Sendable (_ url: String, _ outcome: ObjectPlacer.Outcome) -> Void
    {
        { url, outcome in
            switch outcome {
            case .success(let placed):
                if json {
                    Terminal.out(
                        JSONEvent.encode([
                            "event": "saved", "url": URLCredentials.masked(url), "path": placed.path,
                            "method": placed.method.rawValue,
                        ]))
                } else if !quiet {
                    let how = placed.method == .alreadyThere ? " (already there)" : ""
                    printer.note("saved    \(Printable.name(placed.path))\(how)")
                }
            case .failure(let failure):
                if json {
                    Terminal.out(
                        JSONEvent.encode([
                            "event": "failed", "code": "not-saved", "url": URLCredentials.masked(url),
                            "reason": "cached, but \(failure)",
                        ]))
                }
                printer.note("FAILED   \(Printable.url(url)): cached, but \(failure)")
            }
        }
    }
}
