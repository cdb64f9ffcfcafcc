/// Status lines for failure messages: the reason phrase a person recognises, since libcurl
/// reports only the number.
enum HTTPStatusText {
    /// `HTTP 503 Service Unavailable`, or `HTTP 599` for statuses without a known phrase.
    static func describe(_ status: Int) -> String {
        let text = phrase(status)
        return text.isEmpty ? "HTTP \(status)" : "HTTP \(status) \(text)"
    }

    static func phrase(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 410: "Gone"
        case 416: "Range Not Satisfiable"
        case 429: "Too Many Requests"
        case 451: "Unavailable For Legal Reasons"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: ""
        }
    }
}
