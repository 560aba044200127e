import Foundation
import Hummingbird
import MailModel
import MailSearchKit

/// The category endpoints: the user's choice for an email or a thread (`POST`, body
/// `{"category": "promotions"}`, answering `CategoryChange`), and the counts per category.
extension MailSearchAPI {
    struct CategoryBody: Decodable {
        var category: String
    }

    func registerCategories(on api: RouterGroup<BasicRequestContext>) {
        api.post("emails/:id/category") { request, context in
            let id = try Self.id(context)
            let category = try await Self.category(request)
            return JSON.response(try await service.categories.setCategory(category, emailIds: [id]))
        }
        api.post("threads/:id/category") { request, context in
            let id = try Self.id(context)
            let category = try await Self.category(request)
            return JSON.response(try await service.categories.setCategory(category, threadId: id))
        }
        api.get("categories") { _, _ in JSON.response(try await service.categories.categoryCounts()) }
    }

    static func category(_ request: Request) async throws -> AICategory {
        let body = try await jsonBody(CategoryBody.self, request, example: #"{"category": "promotions"}"#)
        guard let category = AICategory(rawValue: body.category.lowercased()), category != .uncategorized else {
            throw APIError(.badRequest, "\"\(body.category.prefix(40))\" is not a category",
                           hint: "use primary, social, promotions, updates or forums")
        }
        return category
    }
}
