extension ListParser.Builder {
    /// aria2's `user-agent=`, `referer=` and `all-proxy=`. A bad value rejects the
    /// entry: fetched without them it could be refused or go around the proxy.
    mutating func consumeClientOption(_ key: String, _ value: String, at number: Int) {
        switch key {
        case "all-proxy":
            do {
                current!.proxy = try ProxyURL(parsing: value)
            } catch {
                rejectEntry(number, "all-proxy=: \(error.description)")
            }
        case "user-agent":
            if let problem = HeaderValueCheck.problem(value, name: "user-agent=") { return rejectEntry(number, problem) }
            current!.userAgent = value
        default:
            if let problem = HeaderValueCheck.problem(value, name: "referer=") { return rejectEntry(number, problem) }
            current!.referer = value
        }
    }
}
