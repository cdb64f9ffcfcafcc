import Foundation

/// While another process downloads the key (`serve` beside a `prefetch` of the same
/// URL), this job's readers read what that download has written, instead of waiting for
/// its lock with nothing to play.
extension DownloadJob {
    /// Shows readers what the other download holds now (nil: nothing saved yet, or its
    /// state is gone for a moment: started over, or being committed).
    func show(_ foreign: ForeignDownload?) {
        guard let foreign else { return }
        if let shown = foreignShown, shown.epoch != foreign.epoch { download.held.startOver() }
        foreignShown = (foreign.epoch, foreign.about)
        let (epoch, about, key, cache, objects) = (foreign.epoch, foreign.about, key, cache, service.objects)
        download.held.publish(file: foreign.file, completed: foreign.held, about: foreign.about) {
            ForeignDownload.stillHolds(epoch: epoch, about: about, key: key, cache: cache, objects: objects)
        }
    }

    /// The other download committed `object`: if it is the version readers were shown,
    /// the data file they read is whole, and they read on to its end.
    func keepForeignReaders(of object: CachedObject) {
        guard let shown = foreignShown else { return }
        foreignShown = nil
        guard ForeignDownload.isCommitted(about: shown.about, as: object), let length = shown.about.length else { return }
        download.held.didWrite(ByteRange(0, length))
    }

    /// The other download stopped before its end and this job has its lock and state:
    /// readers shown another version than the one it goes on with stop.
    func takeOverFromForeign(_ loaded: JobState) {
        guard let shown = foreignShown else { return }
        foreignShown = nil
        if loaded.epoch != shown.epoch { download.held.startOver() }
    }
}
