/// Tail first: while an MP4 downloads, find where its moov is and fetch it before the
/// middle of mdat, so the file is playable after roughly two requests.
extension DownloadJob {
    /// Walks as far as the held bytes allow; asks for the tail after mdat, or for a box
    /// header the running transfers will not bring soon. Reports `moov-found` once the
    /// whole moov is on disk. `fill`: connections are filled again when the hold ends
    /// (false when the caller fills them next anyway). `arrived`: the bytes just written
    /// from `offset` on, read from memory rather than back from the file (the first box
    /// header of most files is in their first chunk).
    func advanceMoovSearch(fill: Bool = true, arrived: BodyChunk? = nil, at offset: Int64 = 0) {
        guard let attempt, var search = attempt.moovSearch, let file = partial.dataFile else { return }
        var releaseHold = false
        var layoutDemands: [ByteRange] = []
        if !search.locator.isFinished {
            let completed = state.completed
            let step = search.locator.advance(
                isHeld: { completed.contains($0) },
                read: { arrived?.copy(of: $0, chunkAt: offset) ?? (try? file.read(count: Int($0.count), at: $0.start)) })
            let length = search.locator.length
            if let mdat = search.locator.mdat, mdat.end < length, !search.tailRequested {
                search.tailRequested = true
                layoutDemands.append(ByteRange(mdat.end, length))
                releaseHold = true
            }
            switch step {
            case .finished:
                // A late moov still arriving keeps the others waiting (see the hold).
                releaseHold = !attempt.servesADemand
            case .needs(let range) where !attempt.isArrivingSoon(range.start, now: TransferLoop.now()):
                // A big box in the way (free, a large ftyp): fetch just its header region.
                layoutDemands.append(ByteRange(range.start, min(length, range.start + 64 * 1024)))
                releaseHold = true
            case .needs:
                break
            }
        }
        if let moov = search.locator.moov, !search.reported, state.completed.contains(ByteRange(moov.offset, moov.end)) {
            search.reported = true
            emit(.moovFound(url: url, offset: moov.offset, size: moov.size, bytesReceived: bytesFetched))
            if options.faststart { attempt.hasher?.planLayout(length: search.locator.length) }
        }
        let searchIsOver = search.locator.isFinished && (search.locator.moov == nil || search.reported)
        attempt.moovSearch = searchIsOver ? nil : search
        // A demand stays until its bytes are held: one asked for again is not added twice.
        for range in layoutDemands where !attempt.layoutDemands.contains(range) {
            attempt.layoutDemands.append(range)
        }
        if releaseHold {
            // Without a hold or a new demand there is nothing new to start (most files
            // are no MP4 and end their search at the first box).
            let mayStartMore = attempt.holdFillUntil != nil || !layoutDemands.isEmpty
            attempt.holdFillUntil = nil
            if fill && mayStartMore { fillConnections() }
        }
    }
}
