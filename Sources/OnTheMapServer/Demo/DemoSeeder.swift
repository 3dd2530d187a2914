import Foundation
import Logging
import OnTheMapModels
import PhotoAlbums
import Storage

/// `--demo`: a demo account and a few hundred students spread over the world, on the default
/// class's map, so a newcomer sees a living map at once. Idempotent: nothing is added when the demo account
/// already exists.
enum DemoSeeder {
    static let email = "demo@onthemap.local"
    static let password = "onthemap-demo"
    static let locationCount = 300

    /// Returns whether anything was seeded.
    @discardableResult
    static func seed(_ store: any OnTheMapStore, classId: String, bcryptCost: UInt8, now: Date = Date(), logger: Logger) async throws
        -> Bool
    {
        if try await store.account(email: email) != nil { return false }
        try await store.createAccount(
            Account(
                key: "1000000001", email: email, passwordHash: Passwords.hash(password, cost: bcryptCost),
                firstName: "Demo", lastName: "Student", createdAt: now
            ))
        // SplitMix64 (PhotoAlbums): the same demo data on every machine.
        var random = SplitMix(2015)
        for index in 0..<locationCount {
            let city = cities[index % cities.count]
            let first = firstNames.randomElement(using: &random)!
            let last = lastNames.randomElement(using: &random)!
            // Spread over the last 60 days, a little jitter so pins in one city do not stack.
            let updated = now.addingTimeInterval(-Double.random(in: 0...(60 * 86_400), using: &random))
            let created = updated.addingTimeInterval(-Double.random(in: 0...(30 * 86_400), using: &random))
            let handle = "\(first)-\(last)".lowercased().replacingOccurrences(of: " ", with: "-")
            let links = [
                "https://www.linkedin.com/in/\(handle)", "https://github.com/\(handle)", "https://\(handle).dev",
                "www.linkedin.com/in/\(handle)",
            ]
            let record = StudentInformation(
                objectId: String(format: "demo%06d", index),
                uniqueKey: String(2_000_000_000 + index),
                firstName: first, lastName: last, mapString: city.name,
                mediaURL: links.randomElement(using: &random)!,
                latitude: rounded(city.latitude + Double.random(in: -0.08...0.08, using: &random)),
                longitude: rounded(city.longitude + Double.random(in: -0.08...0.08, using: &random)),
                createdAt: ParseDate.string(from: created), updatedAt: ParseDate.string(from: updated)
            )
            try await store.insertLocation(StoredLocation(record: record, ownerKey: nil, classId: classId))
        }
        logger.info("demo data seeded", metadata: ["locations": "\(locationCount)"])
        return true
    }

    private static func rounded(_ degrees: Double) -> Double { (degrees * 100_000).rounded() / 100_000 }

    struct City {
        let name: String
        let latitude: Double
        let longitude: Double
    }

    static let cities: [City] = [
        .init(name: "Mountain View, CA", latitude: 37.3861, longitude: -122.0839),
        .init(name: "San Francisco, CA", latitude: 37.7749, longitude: -122.4194),
        .init(name: "Seattle, WA", latitude: 47.6062, longitude: -122.3321),
        .init(name: "Austin, TX", latitude: 30.2672, longitude: -97.7431),
        .init(name: "Cambridge, MA", latitude: 42.3736, longitude: -71.1097),
        .init(name: "New York, NY", latitude: 40.7128, longitude: -74.0060),
        .init(name: "Chicago, IL", latitude: 41.8781, longitude: -87.6298),
        .init(name: "Denver, CO", latitude: 39.7392, longitude: -104.9903),
        .init(name: "Atlanta, GA", latitude: 33.7490, longitude: -84.3880),
        .init(name: "Huntsville, Alabama", latitude: 34.7304, longitude: -86.5861),
        .init(name: "Miami, FL", latitude: 25.7617, longitude: -80.1918),
        .init(name: "Toronto, Canada", latitude: 43.6532, longitude: -79.3832),
        .init(name: "Vancouver, BC", latitude: 49.2827, longitude: -123.1207),
        .init(name: "Montréal, Québec", latitude: 45.5019, longitude: -73.5674),
        .init(name: "Mexico City", latitude: 19.4326, longitude: -99.1332),
        .init(name: "Costa Rica", latitude: 9.9281, longitude: -84.0907),
        .init(name: "Bogotá, Colombia", latitude: 4.7110, longitude: -74.0721),
        .init(name: "São Paulo, Brazil", latitude: -23.5505, longitude: -46.6333),
        .init(name: "Buenos Aires", latitude: -34.6037, longitude: -58.3816),
        .init(name: "Santiago, Chile", latitude: -33.4489, longitude: -70.6693),
        .init(name: "Lima, Peru", latitude: -12.0464, longitude: -77.0428),
        .init(name: "London, UK", latitude: 51.5074, longitude: -0.1278),
        .init(name: "Dublin, Ireland", latitude: 53.3498, longitude: -6.2603),
        .init(name: "Paris, France", latitude: 48.8566, longitude: 2.3522),
        .init(name: "Berlin, Germany", latitude: 52.5200, longitude: 13.4050),
        .init(name: "München", latitude: 48.1351, longitude: 11.5820),
        .init(name: "Amsterdam", latitude: 52.3676, longitude: 4.9041),
        .init(name: "Madrid, Spain", latitude: 40.4168, longitude: -3.7038),
        .init(name: "Lisbon, Portugal", latitude: 38.7223, longitude: -9.1393),
        .init(name: "Rome, Italy", latitude: 41.9028, longitude: 12.4964),
        .init(name: "Zürich", latitude: 47.3769, longitude: 8.5417),
        .init(name: "Stockholm, Sweden", latitude: 59.3293, longitude: 18.0686),
        .init(name: "Warsaw, Poland", latitude: 52.2297, longitude: 21.0122),
        .init(name: "Kyiv, Ukraine", latitude: 50.4501, longitude: 30.5234),
        .init(name: "Istanbul, Turkey", latitude: 41.0082, longitude: 28.9784),
        .init(name: "Cairo, Egypt", latitude: 30.0444, longitude: 31.2357),
        .init(name: "Lagos, Nigeria", latitude: 6.5244, longitude: 3.3792),
        .init(name: "Nairobi, Kenya", latitude: -1.2921, longitude: 36.8219),
        .init(name: "Cape Town, South Africa", latitude: -33.9249, longitude: 18.4241),
        .init(name: "Dubai, UAE", latitude: 25.2048, longitude: 55.2708),
        .init(name: "Riyadh, Saudi Arabia", latitude: 24.7136, longitude: 46.6753),
        .init(name: "Mumbai, India", latitude: 19.0760, longitude: 72.8777),
        .init(name: "Bengaluru, India", latitude: 12.9716, longitude: 77.5946),
        .init(name: "New Delhi, India", latitude: 28.6139, longitude: 77.2090),
        .init(name: "Dhaka, Bangladesh", latitude: 23.8103, longitude: 90.4125),
        .init(name: "Bangkok, Thailand", latitude: 13.7563, longitude: 100.5018),
        .init(name: "Singapore", latitude: 1.3521, longitude: 103.8198),
        .init(name: "Jakarta, Indonesia", latitude: -6.2088, longitude: 106.8456),
        .init(name: "Manila, Philippines", latitude: 14.5995, longitude: 120.9842),
        .init(name: "Ho Chi Minh City, Vietnam", latitude: 10.8231, longitude: 106.6297),
        .init(name: "Hong Kong", latitude: 22.3193, longitude: 114.1694),
        .init(name: "Shanghai, China", latitude: 31.2304, longitude: 121.4737),
        .init(name: "Seoul, South Korea", latitude: 37.5665, longitude: 126.9780),
        .init(name: "Tokyo, Japan", latitude: 35.6762, longitude: 139.6503),
        .init(name: "Sydney, NSW", latitude: -33.8688, longitude: 151.2093),
        .init(name: "Melbourne, Australia", latitude: -37.8136, longitude: 144.9631),
        .init(name: "Auckland, New Zealand", latitude: -36.8485, longitude: 174.7633),
        .init(name: "Honolulu, HI", latitude: 21.3069, longitude: -157.8583),
        .init(name: "Anchorage, AK", latitude: 61.2181, longitude: -149.9003),
        .init(name: "Reykjavík, Iceland", latitude: 64.1466, longitude: -21.9426),
    ]

    static let firstNames = [
        "Aisha", "Alejandro", "Amara", "Ana", "Arjun", "Ben", "Camila", "Chen", "Chloe", "Daniel", "Diego",
        "Elena", "Emeka", "Fatima", "Gabriel", "Hana", "Hiroshi", "Ines", "Ivan", "Jamal", "Jarrod", "Ji-woo",
        "Kofi", "Lars", "Layla", "Lucas", "Maria", "Mateo", "Mei", "Mohammed", "Nadia", "Noah", "Olga",
        "Priya", "Rafael", "Ravi", "Sakura", "Samuel", "Sofia", "Tariq", "Thandiwe", "Tomás", "Valentina",
        "Wei", "Yara", "Yusuf", "Zanele", "Zoe",
    ]

    static let lastNames = [
        "Adeyemi", "Andersson", "Bauer", "Chen", "Costa", "Dubois", "Fernández", "García", "Gupta", "Haddad",
        "Ivanova", "Jensen", "Kim", "Kowalski", "Kumar", "Lee", "Martin", "Mensah", "Müller", "Nakamura",
        "Nguyen", "Novak", "Okafor", "O'Brien", "Parkes", "Patel", "Popescu", "Rahman", "Rossi", "Santos",
        "Schmidt", "Silva", "Singh", "Smith", "Suzuki", "Tanaka", "Torres", "Wang", "Williams", "Yilmaz",
    ]
}

/// The demo login, for `serve --demo` to print.
public enum DemoAccount {
    public static let email = DemoSeeder.email
    public static let password = DemoSeeder.password
}
