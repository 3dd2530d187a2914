import Foundation
import ObjectStorage
import Testing

/// The published AWS Signature Version 4 vectors: the aws-sig-v4-test-suite (service
/// `service`, us-east-1, 2015-08-30T12:36:00Z, the suite's example key) and the S3
/// documentation's worked examples (header and query-string authentication).
@Suite struct SigV4Tests {
    static let suiteDate = Date(timeIntervalSince1970: 1_440_938_160)  // 20150830T123600Z
    static let suite = SigV4Signer(
        credentials: AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1", service: "service"
    )
    static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    static func suiteRequest(
        _ method: String = "GET", path: String = "/", query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)] = [], body: String = ""
    ) -> SigV4Signer.Request {
        SigV4Signer.Request(
            method: method, path: path, query: query,
            headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")] + headers,
            payloadHash: SigV4Signer.sha256Hex(Data(body.utf8))
        )
    }

    @Test func timestampAndScope() {
        #expect(SigV4Signer.timestamp(Self.suiteDate) == "20150830T123600Z")
        #expect(Self.suite.scope(Self.suiteDate) == "20150830/us-east-1/service/aws4_request")
    }

    @Test func getVanillaCanonicalRequestStringToSignAndSignature() {
        let request = Self.suiteRequest()
        #expect(
            Self.suite.canonicalRequest(request) == """
                GET
                /

                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                host;x-amz-date
                \(Self.emptyHash)
                """)
        #expect(
            Self.suite.stringToSign(request, date: Self.suiteDate) == """
                AWS4-HMAC-SHA256
                20150830T123600Z
                20150830/us-east-1/service/aws4_request
                bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63
                """)
        #expect(
            Self.suite.authorization(request, date: Self.suiteDate)
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, "
                + "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
    }

    @Test(
        arguments: [
            // get-vanilla-query-order-key-case: parameters sorted by name.
            (
                "order", "GET", "/", [("Param2", "value2"), ("Param1", "value1")], [(String, String)](), "",
                "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"
            ),
            // get-vanilla-empty-query-key
            (
                "one-param", "GET", "/", [("Param1", "value1")], [], "",
                "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"
            ),
            // get-unreserved: unreserved characters are not encoded.
            (
                "unreserved", "GET", "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", [], [], "",
                "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"
            ),
            // post-vanilla
            ("post", "POST", "/", [], [], "", "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
            // post-x-www-form-urlencoded: a signed content type and a hashed body.
            (
                "form", "POST", "/", [], [("Content-Type", "application/x-www-form-urlencoded")], "Param1=value1",
                "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"
            ),
            // get-header-value-trim: values trimmed, inner runs of spaces collapsed.
            (
                "trim", "GET", "/", [], [("My-Header1", " value1"), ("My-Header2", " \"a   b   c\"")], "",
                "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"
            ),
        ] as [(String, String, String, [(String, String)], [(String, String)], String, String)])
    func suiteSignatures(
        name: String, method: String, path: String, query: [(String, String)], headers: [(String, String)],
        body: String, signature: String
    ) {
        let request = Self.suiteRequest(
            method, path: path, query: query.map { ($0.0, $0.1) }, headers: headers.map { ($0.0, $0.1) }, body: body)
        #expect(Self.suite.signature(request, date: Self.suiteDate) == signature, "\(name)")
    }

    @Test func oneChangedByteChangesTheSignature() {
        let request = Self.suiteRequest(body: "Param1=value1")
        var tampered = request
        tampered.payloadHash = SigV4Signer.sha256Hex(Data("Param1=value2".utf8))
        #expect(Self.suite.signature(request, date: Self.suiteDate) != Self.suite.signature(tampered, date: Self.suiteDate))
    }

    @Test func trimmingAndQueryEncoding() {
        let request = Self.suiteRequest(query: [("b", "x y"), ("a", "é/+")], headers: [("My-Header2", " \"a   b   c\"")])
        let canonical = Self.suite.canonicalRequest(request).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(canonical[2] == "a=%C3%A9%2F%2B&b=x%20y")
        #expect(canonical.contains("my-header2:\"a b c\""))
    }

    // MARK: S3 documentation examples (examplebucket, 2013-05-24, us-east-1)

    static let s3Date = Date(timeIntervalSince1970: 1_369_353_600)  // 20130524T000000Z
    static let s3 = SigV4Signer(
        credentials: AWSCredentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1", service: "s3"
    )

    @Test func s3GetObjectWithRange() {
        let request = SigV4Signer.Request(
            method: "GET", path: "/test.txt",
            headers: [
                ("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9"),
                ("x-amz-content-sha256", Self.emptyHash), ("x-amz-date", "20130524T000000Z"),
            ], payloadHash: Self.emptyHash)
        #expect(Self.s3.signature(request, date: Self.s3Date) == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test func s3PutObject() {
        let body = Data("Welcome to Amazon S3.".utf8)
        let hash = SigV4Signer.sha256Hex(body)
        #expect(hash == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let request = SigV4Signer.Request(
            method: "PUT", path: "/test$file.text",
            headers: [
                ("Host", "examplebucket.s3.amazonaws.com"), ("Date", "Fri, 24 May 2013 00:00:00 GMT"),
                ("x-amz-date", "20130524T000000Z"), ("x-amz-storage-class", "REDUCED_REDUNDANCY"), ("x-amz-content-sha256", hash),
            ], payloadHash: hash)
        #expect(Self.s3.signature(request, date: Self.s3Date) == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
    }

    @Test func s3ListObjects() {
        let request = SigV4Signer.Request(
            method: "GET", path: "/", query: [("max-keys", "2"), ("prefix", "J")],
            headers: [
                ("Host", "examplebucket.s3.amazonaws.com"), ("x-amz-content-sha256", Self.emptyHash), ("x-amz-date", "20130524T000000Z"),
            ], payloadHash: Self.emptyHash)
        #expect(Self.s3.signature(request, date: Self.s3Date) == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    @Test func s3PresignedURL() {
        let query = Self.s3.presignedQuery(
            method: "GET", host: "examplebucket.s3.amazonaws.com", path: "/test.txt",
            expires: 86400, date: Self.s3Date)
        let values = Dictionary(query.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(values["X-Amz-Credential"] == "AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request")
        #expect(values["X-Amz-SignedHeaders"] == "host")
        #expect(values["X-Amz-Expires"] == "86400")
        #expect(values["X-Amz-Signature"] == "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
    }

    @Test func credentialsNeverPrintTheSecret() {
        let credentials = AWSCredentials(accessKeyID: "AKID", secretAccessKey: "very-secret-value")
        #expect(!"\(credentials)".contains("very-secret-value"))
        #expect(
            !String(
                reflecting: S3Configuration(
                    endpoint: URL(string: "http://127.0.0.1:1")!, region: "r", bucket: "b",
                    credentials: credentials)
            ).contains("very-secret-value"))
    }
}
