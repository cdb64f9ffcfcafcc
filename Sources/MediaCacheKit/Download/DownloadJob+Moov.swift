/// Tail first: while an MP4 downloads, find where its moov is and fetch it before the
/// middle of mdat, so the file is playable after roughly two requests.
extension DownloadJob {
    /// Walks as far as the held bytes allow; asks for the tail after mdat, or for a box
    /// header the running transfers will not bring soon. Reports `moov-found` once the
    /// whole moov is on disk.
    func advanceMoovSearch() {
        guard var locator = moovLocator, let file = dataFile else { return }
        var releaseHold = false
        if !locator.isFinished {
            let completed = state.completed
            let step = locator.advance(
                isHeld: { completed.contains($0) },
                read: { try? file.read(count: Int($0.count), at: $0.start) })
            if let mdat = locator.mdat, mdat.end < locator.length, !tailPrioritized {
                tailPrioritized = true
                priorityRanges.append(ByteRange(mdat.end, locator.length))
                releaseHold = true
            }
            switch step {
            case .finished:
                // A late moov still arriving keeps the others waiting (see the hold).
                releaseHold = !fragments.values.contains(where: \.isPriority)
            case .needs(let range) where !isArrivingSoon(range.start):
                // A big box in the way (free, a large ftyp): fetch just its header region.
                priorityRanges.append(ByteRange(range.start, min(locator.length, range.start + 64 * 1024)))
                releaseHold = true
            case .needs:
                break
            }
        }
        moovLocator = locator
        if let moov = locator.moov, !moovReported, state.completed.contains(ByteRange(moov.offset, moov.end)) {
            moovReported = true
            emit(.moovFound(url: url, offset: moov.offset, size: moov.size, bytesReceived: bytesFetched))
            if options.faststart { hasher?.planLayout(length: locator.length) }
        }
        if locator.isFinished && (locator.moov == nil || moovReported) {
            moovLocator = nil
        }
        if releaseHold {
            holdFillUntil = 0
            fillConnections()
        }
    }

    /// Whether a running transfer will write `offset` within its next 256 KiB, or a
    /// priority request (a short one, answered or not yet) covers it.
    func isArrivingSoon(_ offset: Int64) -> Bool {
        fragments.values.contains {
            $0.next <= offset && offset < $0.end && ($0.isPriority || ($0.accepted && offset - $0.next < 256 * 1024))
        }
    }
}
