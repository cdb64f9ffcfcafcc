import Testing
@testable import MediaCacheKit

/// `--tier s3://BUCKET/PREFIX`, the endpoint and the AWS_* variables: what is accepted,
/// and what each mistake is called.
@Suite("TierLocation")
struct TierLocationTests {
    @Test(arguments: [
        ("s3://media-fleet/catalogue/v1", "media-fleet", "catalogue/v1"),
        ("s3://media-fleet/catalogue/", "media-fleet", "catalogue"),
        ("S3://media.fleet//a b/+c/", "media.fleet", "a b/+c"),
        ("s3://abc", "abc", ""),
        ("s3://abc/", "abc", ""),
    ])
    func validLocations(text: String, bucket: String, prefix: String) throws {
        let location = try TierLocation(parsing: text)
        #expect(location.bucket == bucket)
        #expect(location.prefix == prefix)
    }

    @Test(arguments: [
        ("https://bucket/p", "does not start with s3://"),
        ("s3://", "no bucket name"),
        ("s3:///prefix", "no bucket name"),
        ("s3://ab/p", "not 3 to 63 characters"),
        ("s3://My_Bucket/p", "only lowercase letters, digits"),
        ("s3://-bucket/p", "start and end with a letter or digit"),
        ("s3://a..b/p", "two dots in a row"),
        ("s3://bucket/a//b", "empty segment"),
        ("s3://bucket/a/../b", "a '..' segment"),
        ("s3://bucket/a\tb", "control character"),
    ])
    func invalidLocationsSayWhy(text: String, reason: String) {
        let error = #expect(throws: TierError.self) { try TierLocation(parsing: text) }
        #expect(error?.description.contains(reason) == true, "\(String(describing: error))")
        #expect(error?.description.contains("expected s3://BUCKET/PREFIX") == true)
    }

    @Test func tooLongAPrefixIsRefused() {
        let text = "s3://bucket/" + String(repeating: "a", count: TierLocation.maxPrefixBytes + 1)
        #expect(throws: TierError.self) { try TierLocation(parsing: text) }
    }

    @Test func theDescriptionIsTheLocationAsWritten() throws {
        #expect(try TierLocation(parsing: "s3://bucket/a/b/").description == "s3://bucket/a/b")
        #expect(try TierLocation(parsing: "s3://bucket").description == "s3://bucket")
    }

    // MARK: Endpoint and credentials

    private let location = try! TierLocation(parsing: "s3://bucket/p")
    private let keys = ["AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG"]

    @Test func theEndpointFlagWinsOverTheVariableAndRegionDefaults() throws {
        var environment = keys
        environment["AWS_ENDPOINT_URL"] = "http://env.example:9000"
        let configuration = try S3Configuration.fromEnvironment(
            location: location, endpoint: "https://flag.example/s3/", environment: environment)
        #expect(configuration.endpoint == "https://flag.example/s3")
        #expect(configuration.region == "us-east-1")
        #expect(configuration.credentials.sessionToken == nil)

        environment["AWS_REGION"] = "eu-central-1"
        environment["AWS_SESSION_TOKEN"] = "token"
        let fromVariables = try S3Configuration.fromEnvironment(location: location, environment: environment)
        #expect(fromVariables.endpoint == "http://env.example:9000")
        #expect(fromVariables.region == "eu-central-1")
        #expect(fromVariables.credentials.sessionToken == "token")
    }

    @Test func noEndpointIsAnErrorNamingBothWaysToGiveOne() {
        let error = #expect(throws: TierError.self) {
            try S3Configuration.fromEnvironment(location: location, environment: keys.merging(["AWS_ENDPOINT_URL": ""]) { $1 })
        }
        #expect(error == .missingEndpoint)
        #expect(error?.description.contains("--s3-endpoint") == true)
        #expect(error?.description.contains("AWS_ENDPOINT_URL") == true)
    }

    @Test func missingCredentialsNameTheUnsetVariables() {
        let error = #expect(throws: TierError.self) {
            try S3Configuration.fromEnvironment(
                location: location, endpoint: "http://127.0.0.1:8333", environment: ["AWS_ACCESS_KEY_ID": "AKID"])
        }
        #expect(error == .missingCredentials(variables: ["AWS_SECRET_ACCESS_KEY"]))
        #expect(error?.description.contains("set AWS_SECRET_ACCESS_KEY") == true)
    }

    @Test(arguments: [
        ("127.0.0.1:8333", "http:// or https://"),
        ("http://key:secret@store.example", "not in the URL"),
        ("http://store.example/?x=1", "query or fragment"),
        ("http://", "not a URL with a host"),
    ])
    func badEndpointsSayWhy(endpoint: String, reason: String) {
        let error = #expect(throws: TierError.self) {
            try S3Configuration.fromEnvironment(location: location, endpoint: endpoint, environment: keys)
        }
        #expect(error?.description.contains(reason) == true, "\(String(describing: error))")
    }

    @Test func credentialsNeverPrintTheirSecret() {
        let credentials = S3Credentials(accessKeyID: "AKID", secretAccessKey: "wJalrXUtnFEMI", sessionToken: "tok3n")
        #expect(!"\(credentials)".contains("wJalrXUtnFEMI"))
        #expect(!"\(credentials)".contains("tok3n"))
        #expect("\(credentials)".contains("AKID"))
    }

    // MARK: Request URLs

    @Test func requestURLsAreInTheCanonicalFormSigV4Signs() {
        let url = S3RequestURL.make(
            endpoint: "http://127.0.0.1:8333", bucket: "bucket", key: "a b/+c/ü~x",
            query: [("uploadId", "2~a/b=c"), ("partNumber", "3"), ("uploads", "")])
        #expect(url == "http://127.0.0.1:8333/bucket/a%20b/%2Bc/%C3%BC~x?partNumber=3&uploadId=2~a%2Fb%3Dc&uploads=")
        #expect(S3RequestURL.make(endpoint: "https://s", bucket: "b") == "https://s/b")
    }
}
