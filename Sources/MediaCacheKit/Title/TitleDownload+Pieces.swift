import Foundation

/// A title's large ranged files, fetched in pieces (`PiecedFile`): each piece's report
/// decides what the file does next, and a file whose every byte is in is hashed, then
/// held like any other resource.
extension TitleDownload {
    /// A piece of a file fetched in pieces.
    func fetchPiece(_ piece: ByteRange, of file: PiecedFile, forPlayer: Bool = false) {
        let fetch = ResourceFetch(
            piece: piece, of: file.resource, url: file.url, redirectHops: file.redirectHops,
            path: filesDirectory + "/" + file.resource.path, validator: file.validator, total: file.total
        ) { [weak self] fetch, outcome in
            self?.fetchedPiece(fetch, of: file, outcome)
        }
        fetch.onPieceAnswered = { [weak self] fetch in
            let knew = file.length != nil
            file.answered(fetch)
            // Readers may seek in it once its length is known (its first answer).
            if !knew, let length = file.length { self?.view?.note(file.resource.path, .pieces(length: length, held: file.held)) }
            self?.fill()
        }
        file.started(fetch)
        send(fetch, forPlayer: forPlayer)
    }

    func fetchedPiece(_ fetch: ResourceFetch, of file: PiecedFile, _ outcome: ResourceFetch.Outcome) {
        let path = file.resource.path
        guard !ended, pieced[path] === file else { return }
        let verdict = file.report(
            fetch, outcome, retries: options.retries, retryPolicy: job.retryPolicy, now: TransferLoop.now())
        switch verdict {
        case .goOn(let fetched):
            job.bytesFetched += fetched
            if fetched > 0 { unsaved += 1 }
            if file.isComplete, failing == nil { hash(file) }
        case .retry(let delay, let attempt, let reason):
            let failure = JobFailure(.retriesExhausted, "\(reason) (\(attempt) failures in a row)")
            if attempt >= Self.failuresBeforeAnotherCopy, fetch.url == file.url, tryAnotherCopy(for: file.resource, after: failure) {
                file.forgetFailures()
                break
            }
            job.emit(.retry(url: job.url, attempt: attempt, delay: delay, reason: reason))
            _ = loop.after(delay) { [weak self] in self?.fill() }
        case .startOver(let reason):
            job.emit(.notice(url: job.url, message: "\(reason): fetching it whole"))
            file.startOver(on: loop) { [weak self] in
                guard let self, !ended, pieced[path] === file else { return }
                pieced[path] = nil
                // Readers given its bytes so far stop; the file is fetched from byte 0, in one piece.
                view?.note(path, .from(0))
                pending.insert(file.resource, at: 0)
                fill()
            }
        case .expired(let status, let failure):
            // Its bytes are asked for again once the playlists have been read again.
            if refreshing { break }
            // Sent with the URL from before the playlists were read again: asked again
            // with the fresh one (the file has it now); a fresh URL refused ends the title.
            if urlsRefreshed && fetch.url != file.url { break }
            guard !urlsRefreshed else {
                if !tryAnotherCopy(for: file.resource, after: failure) { fail(failure) }
                return
            }
            refreshURLs(retrying: file.resource, status: status, failure: failure)
        case .failed(let failure):
            // Sent before the playlists were read again: its bytes are asked for again
            // with the URL they give.
            if refreshing || fetch.url != file.url { break }
            guard tryAnotherCopy(for: file.resource, after: failure) else { return fail(failure) }
            file.forgetFailures()
        }
        fill()
    }

    /// Every piece of `file` is in: it is held once hashed.
    func hash(_ file: PiecedFile) {
        let path = file.resource.path
        file.hash(filesDirectory + "/" + path, on: loop) { [weak self] result in
            guard let self, !ended, pieced[path] === file else { return }
            pieced[path] = nil
            switch result {
            case .success(let sha256): hold(file.resource, size: file.held.byteCount, sha256: sha256)
            case .failure(let error): return fail(JobFailure(.io, "\(error)"))
            }
            fill()
        }
    }
}
