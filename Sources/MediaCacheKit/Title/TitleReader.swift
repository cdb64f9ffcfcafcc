/// Reads a title of either format from its URL and plans it: an HLS playlist (and the
/// media playlists of the renditions chosen from a master) or a DASH MPD. On the loop
/// thread; reports once.
enum TitleReader {
    struct Planned {
        var plan: any TitlePlan
        /// What the user should hear about the choice (a limit no rendition met).
        var notes: [String]
        /// The copy the files come from: the one asked for, or one after it whose
        /// playlists could be read (`copyNotes` say why).
        var copy: Int
        var copyNotes: [String] = []
    }

    typealias Completion = (Result<Planned, JobFailure>) -> Void

    /// `copy`: which of the copies the playlists name to read (`TitlePlan.copies`).
    static func read(
        _ url: String, format: PresentationFormat, playlists: PlaylistFetcher, selection: RenditionSelectionOptions,
        copy: Int = 0, completion: @escaping Completion
    ) {
        switch format {
        case .hls:
            HLSTitleReader(playlists: playlists, selection: selection, copy: copy).read(url) { result in
                completion(result.map { title in
                    Planned(
                        plan: HLSTitlePlan(master: title.master, renditions: title.renditions), notes: title.notes,
                        copy: title.copy, copyNotes: title.copyNotes)
                })
            }
        case .dash:
            playlists.fetch(url, maxBytes: XMLElementTree.maxBytes) { result in
                completion(result.flatMap { fetched in
                    planDASH(fetched.bytes, from: fetched.finalURL, selection: selection, copy: copy)
                })
            }
        }
    }

    /// Reads an MPD fetched from `url` (its final URL) and plans the representations
    /// chosen from it.
    static func planDASH(
        _ bytes: [UInt8], from url: String, selection: RenditionSelectionOptions, copy: Int = 0
    ) -> Result<Planned, JobFailure> {
        let manifest: DASHManifest
        do throws(PresentationError) {
            manifest = try DASHManifest(parsing: bytes, url: url, copy: copy)
        } catch {
            return .failure(JobFailure(.badResponse, error.message))
        }
        let choice = DASHRenditionSelection.choose(from: manifest, options: selection)
        guard !choice.representations.isEmpty else {
            return .failure(JobFailure(.badResponse, "\(Printable.url(url)) names no representation to fetch"))
        }
        return .success(
            Planned(plan: DASHTitlePlan(manifest: manifest, chosen: choice.representations), notes: choice.notes, copy: copy))
    }
}
