import Foundation

/// What a request must carry to be served, as a site behind a login has it: without
/// the cookie the origin answers 403, without the Basic login 401 with a challenge.
public struct AccessRule: Sendable {
    /// `name=value` that must be among the request's cookies.
    public var cookie: String?
    /// `user:password` that must come as Basic authorization.
    public var basicLogin: String?

    public init(cookie: String? = nil, basicLogin: String? = nil) {
        self.cookie = cookie
        self.basicLogin = basicLogin
    }

    /// The refusal for `request`, or nil when it may be served.
    func denial(for request: HTTPRequestHead, sendsBody: Bool) -> ResponsePlan? {
        if let basicLogin, request.headers["authorization"] != "Basic " + Data(basicLogin.utf8).base64EncodedString() {
            var plan = ResponsePlan.text(401, "login required\n", sendsBody: sendsBody)
            plan.head.add("WWW-Authenticate", "Basic realm=\"test\"")
            return plan
        }
        if let cookie {
            let sent = (request.headers["cookie"] ?? "").split(separator: ";").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            if !sent.contains(cookie) { return ResponsePlan.text(403, "cookie required\n", sendsBody: sendsBody) }
        }
        return nil
    }
}
