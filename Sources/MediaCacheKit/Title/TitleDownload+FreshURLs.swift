import Foundation

extension TitleDownload {
    /// A resource answered as if its URL had expired (a signed URL's token): the title's
    /// playlists are read once more, and what is still to fetch takes the URLs they name
    /// now, matched by stored path (the rendition and the place in it), never by URL.
    func refreshURLs(retrying resource: TitleResource, status: Int, failure: JobFailure) {
        urlsRefreshed = true
        refreshing = true
        job.emit(.notice(url: job.url, message: "\(resource.label) answered HTTP \(status): reading the playlists again for fresh URLs"))
        read(job.url) { [self] result in
            refreshing = false
            guard !ended else { return }
            guard case .success(let title) = result else {
                return fail(failure)
            }
            let fresh = title.plan
            let urls = Dictionary(fresh.resources.map { ($0.path, $0.url) }, uniquingKeysWith: { first, _ in first })
            guard let url = urls[resource.path] else { return fail(failure) }
            for path in Set(running.keys).union(writing.keys) where path != resource.path {
                sentBeforeRefresh[path] = urls[path]
            }
            for index in pending.indices { pending[index].url = urls[pending[index].path] ?? pending[index].url }
            for (path, file) in pieced {
                file.url = urls[path] ?? file.url
                file.redirectHops = 0
            }
            if pieced[resource.path] == nil {
                var renewed = resource
                renewed.url = url
                pending.insert(renewed, at: 0)
            }
            let jumps = jumpsAfterRefresh
            jumpsAfterRefresh = []
            for jump in jumps { jumpQueue(jump.path, at: jump.offset) }
            fill()
        }
    }
}
