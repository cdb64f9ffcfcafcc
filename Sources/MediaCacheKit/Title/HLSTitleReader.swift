/// Reads an HLS title from its URL: the playlist there, and when it is a master
/// playlist, the media playlists of the renditions chosen from it (fetched at once).
/// On the loop thread; reports once.
final class HLSTitleReader {
    struct Title {
        var master: HLSMasterPlaylist?
        var renditions: [(SelectedRendition, HLSMediaPlaylist)]
        /// What the user should hear about the choice (a limit no variant met).
        var notes: [String]
        /// The furthest copy a rendition's playlist came from (`TitlePlan.copies`): past
        /// the one asked for when that one's could not be fetched.
        var copy = 0
        /// Which copies were given up for which, and why.
        var copyNotes: [String] = []
    }

    typealias Completion = (Result<Title, JobFailure>) -> Void

    private let playlists: PlaylistFetcher
    private let selection: RenditionSelectionOptions
    /// Which copy of each variant to read first (`TitlePlan.copies`).
    private let copy: Int
    private var completion: Completion?
    private var mediaPlaylists: [Int: HLSMediaPlaylist] = [:]
    private var notes: [String] = []
    private var furthestCopy = 0
    private var copyNotes: [String] = []

    /// `copy`: read each variant listed several times from its copy of that number (its
    /// last when it has fewer), and on from there if that one fails.
    init(playlists: PlaylistFetcher, selection: RenditionSelectionOptions, copy: Int = 0) {
        self.playlists = playlists
        self.selection = selection
        self.copy = copy
    }

    func read(_ url: String, completion: @escaping Completion) {
        self.completion = completion
        playlists.fetch(url) { [self] result in
            switch result {
            case .failure(let failure): finish(.failure(failure))
            case .success(let fetched): read(fetched.bytes, from: fetched.finalURL)
            }
        }
    }

    private func finish(_ result: Result<Title, JobFailure>) {
        guard let completion else { return }
        self.completion = nil
        completion(result)
    }

    private func read(_ bytes: [UInt8], from url: String) {
        let playlist: HLSPlaylist
        do {
            playlist = try HLSPlaylist(parsing: bytes, url: url)
        } catch {
            return finish(.failure(JobFailure(.badResponse, error.message)))
        }
        switch playlist {
        case .media(let media):
            let only = SelectedRendition(identity: "media", kind: .variant, uri: media.url)
            finish(.success(Title(master: nil, renditions: [(only, media)], notes: [])))
        case .master(let master):
            let choice = RenditionSelection.choose(from: master, options: selection)
            guard !choice.renditions.isEmpty else {
                return finish(.failure(JobFailure(.badResponse, "\(Printable.url(url)) names no variant to fetch")))
            }
            readMediaPlaylists(of: master, choice)
        }
    }

    private func readMediaPlaylists(of master: HLSMasterPlaylist, _ choice: RenditionChoice) {
        notes = choice.notes
        for (index, rendition) in choice.renditions.enumerated() {
            let copies = [rendition.uri] + rendition.backups
            readMediaPlaylist(index, of: master, choice, copies: copies, from: min(copy, copies.count - 1))
        }
    }

    /// The media playlist of rendition `index`, from the first of its `copies` from
    /// number `first` on that gives one (a variant listed again on other servers has backups).
    private func readMediaPlaylist(
        _ index: Int, of master: HLSMasterPlaylist, _ choice: RenditionChoice, copies: [String], from first: Int
    ) {
        let chosen = choice.renditions
        // With another copy to read, a server that keeps failing is given up as soon as a
        // segment's would be.
        let retries = first + 1 < copies.count ? TitleDownload.failuresBeforeAnotherCopy - 1 : nil
        playlists.fetch(copies[first], retries: retries) { [self] result in
            switch result {
            case .failure(let failure) where first + 1 < copies.count:
                copyNotes.append(
                    "\(chosen[index].identity): \(failure.message); using the copy at \(Printable.url(copies[first + 1]))")
                readMediaPlaylist(index, of: master, choice, copies: copies, from: first + 1)
            case .failure(let failure):
                finish(.failure(failure))
            case .success(let fetched):
                do throws(PresentationError) {
                    mediaPlaylists[index] = try HLSMediaPlaylist(
                        parsing: fetched.bytes, url: fetched.finalURL, imports: master.variables)
                } catch {
                    return finish(.failure(JobFailure(.badResponse, error.message)))
                }
                furthestCopy = max(furthestCopy, first)
                guard mediaPlaylists.count == chosen.count else { return }
                let renditions = chosen.indices.map { (chosen[$0], mediaPlaylists[$0]!) }
                finish(.success(
                    Title(master: master, renditions: renditions, notes: notes, copy: furthestCopy, copyNotes: copyNotes)))
            }
        }
    }
}
