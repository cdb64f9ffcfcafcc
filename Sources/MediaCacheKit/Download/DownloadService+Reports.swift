import Foundation

/// How a download's end is told: its event, the `committed` hook, and the index rows
/// that record uses and names, written off the transfer thread.
extension DownloadService {
    /// Gives a row recovered by an index rebuild its names back, off the transfer thread.
    func restoreNames(of object: CachedObject, from entry: ListEntry) {
        diskWork.enter()
        indexWork.async { [index, diskWork] in
            try? index.restoreNames(of: object, from: entry)
            diskWork.leave()
        }
    }

    /// Marks the objects found cached as used, off the transfer thread.
    func recordUses() {
        guard !usedKeys.isEmpty else { return }
        let keys = usedKeys
        usedKeys = []
        diskWork.enter()
        indexWork.async { [index, diskWork] in
            try? index.touch(keys: keys)
            diskWork.leave()
        }
    }

    /// Sends the event of how `request`'s download ended (on the transfer thread).
    func report(_ result: DownloadResult, for request: JobRequest, name: String?) {
        let entry = request.entry
        let name = name ?? entry.displayName
        switch result {
        case .committed(let object):
            committed?(object)
            emit(
                .committed(
                    url: entry.url, name: name, path: cache.absolute(object.path), size: object.size,
                    faststart: object.faststart))
        case .alreadyCached(let object):
            usedKeys.append(request.key)
            if usedKeys.count >= 512 { recordUses() }
            restoreNames(of: object, from: entry)
            emit(.skipped(url: entry.url, name: name, path: cache.absolute(object.path)))
        case .failed(let failure):
            emit(.failed(url: entry.url, name: name, failure: failure))
        case .interrupted:
            break
        }
    }
}
