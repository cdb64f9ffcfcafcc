import Foundation

/// What a job's readers were shown of another process's download of its key.
struct ForeignShown: Sendable {
    let epoch: UInt64
    let about: DownloadData
    /// The data file they read: if it becomes the object, they read on to its end.
    let file: FileIdentity?
    var bytes: Int64
    /// When its bytes last grew.
    var grewAt: Double
    /// Its bytes and the time when its rate was last taken (for a status page).
    var sample: (bytes: Int64, at: Double)
}

/// While another process downloads the key (`serve` beside a `prefetch` of the same
/// URL), this job's readers read what that download has written, instead of waiting for
/// its lock with nothing to play.
extension DownloadJob {
    /// Shows readers what the other download holds now (nil: nothing saved yet, or its
    /// state is gone for a moment: started over, or being committed). One that brings
    /// nothing for `--timeout` (stopped with SIGSTOP, say) is withdrawn: its readers
    /// stop, and new ones get the timeout's answer, until it goes on.
    func show(_ foreign: ForeignDownload?) {
        guard let foreign else { return }
        let (now, bytes) = (TransferLoop.now(), foreign.held.byteCount)
        if let stalled = foreignStalled, stalled.epoch == foreign.epoch, stalled.bytes >= bytes { return }
        foreignStalled = nil
        if var shown = foreignShown, shown.epoch == foreign.epoch {
            if bytes > shown.bytes {
                shown.bytes = bytes
                shown.grewAt = now
            } else if now - shown.grewAt >= Double(options.stallTimeout) {
                download.held.startOver()
                download.activity.withLock { $0 = (0, 0, false) }
                foreignShown = nil
                foreignStalled = (foreign.epoch, bytes)
                return
            }
            // Its rate over the last second or more; its connections are its own to know.
            if now - shown.sample.at >= 1 {
                let rate = Double(bytes - shown.sample.bytes) / (now - shown.sample.at)
                download.activity.withLock { $0 = (max(0, rate), 0, true) }
                shown.sample = (bytes, now)
            }
            foreignShown = shown
        } else {
            if foreignShown != nil { download.held.startOver() }
            foreignShown = ForeignShown(
                epoch: foreign.epoch, about: foreign.about, file: foreign.fileID, bytes: bytes, grewAt: now,
                sample: (bytes, now))
            download.activity.withLock { $0.elsewhere = true }
        }
        let (epoch, about, file, key, cache, objects) = (foreign.epoch, foreign.about, foreignShown?.file, key, cache, service.objects)
        download.held.publish(file: foreign.file, completed: foreign.held, about: foreign.about) {
            ForeignDownload.stillHolds(epoch: epoch, about: about, file: file, key: key, cache: cache, objects: objects)
        }
    }

    /// The other download committed the object: `whole` when it holds the bytes readers
    /// were shown (`ForeignDownload.isCommitted`); they then read on to its end.
    func keepForeignReaders(whole: Bool) {
        guard let shown = foreignShown else { return }
        foreignShown = nil
        guard whole, let length = shown.about.length else { return }
        download.held.didWrite(ByteRange(0, length))
    }

    /// The other download stopped before its end and this job has its lock and state:
    /// readers shown another version than the one it goes on with stop.
    func takeOverFromForeign(_ loaded: JobState) {
        guard let shown = foreignShown else { return }
        foreignShown = nil
        download.activity.withLock { $0.elsewhere = false }
        if loaded.epoch != shown.epoch { download.held.startOver() }
    }

    /// Shows readers another process's title as it downloads: its playlists at once, and
    /// each file once that process has saved it as held (they wait for the rest there).
    func show(_ title: ForeignTitle?) {
        guard let title else { return }
        if foreignTitle == nil, let outline = title.outline {
            let view = TitleInProgress(
                outline: outline, filesDirectory: ForeignTitle.filesDirectory(key: key, cache: cache), held: title.held)
            foreignTitle = view
            foreignLengths = outline.lengths ?? [:]
            download.activity.withLock { $0.elsewhere = true }
            download.held.publish(title: view)
        }
        guard let view = foreignTitle else { return }
        view.hold(title.held)
        for (path, pieces) in title.pieces {
            guard let length = pieces.length ?? foreignLengths[path] else { continue }
            view.note(path, .pieces(length: length, held: pieces.held))
        }
    }

    /// The other process stopped before the title's end and this job goes on with it:
    /// readers waiting in the other's view wait on, and read from this job's view once
    /// its plan is made (`HeldBytes.publish(title:)`), or hear how the job ended.
    func takeOverForeignTitle() {
        guard foreignTitle != nil else { return }
        foreignTitle = nil
        download.activity.withLock { $0.elsewhere = false }
    }
}
