package io.providermirror.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.handler.codec.http.HttpMethod;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The operator API's OpenAPI description ({@code openapi.yaml}) against the routes {@link OperatorRoutes} really
 * answers, both ways: every route is described (a route added without its description fails here, named), every
 * described operation is routed to the route of that path, every kind of route the parser can answer is in its
 * table, and every operation documents the refusals every operator request can get.
 */
final class OperatorApiDescriptionTest {

    private final OpenApiDescription description = OpenApiDescription.load();

    private static String key(String method, String path) {
        return method + " " + path;
    }

    private Set<String> described() {
        return description.operations().stream()
                .map(op -> key(op.method(), op.path()))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void everyRouteTheApiAnswersIsDescribed() {
        List<String> undescribed = OperatorRoutes.ROUTES.stream()
                .map(route -> key(route.method().name(), route.path()))
                .filter(route -> !described().contains(route))
                .toList();

        assertThat(undescribed)
                .as(
                        "routes OperatorRoutes answers that openapi.yaml (%s) does not describe; describe each there",
                        OperatorRoutes.DESCRIPTION_RESOURCE)
                .isEmpty();
    }

    @Test
    void everyDescribedOperationIsRoutedToTheRouteOfItsPath() {
        List<String> problems = new ArrayList<>();
        for (OpenApiDescription.Operation operation : description.operations()) {
            String sample = description.samplePath(operation);
            OperatorRoutes.OperatorRoute route = OperatorRoutes.parse(HttpMethod.valueOf(operation.method()), sample);
            List<OperatorRoutes.Template> templates = OperatorRoutes.ROUTES.stream()
                    .filter(t -> t.path().equals(operation.path())
                            && t.method().name().equals(operation.method()))
                    .toList();
            if (route instanceof OperatorRoutes.Invalid invalid) {
                problems.add(operation + " (as " + sample + ") is not routed: " + invalid);
            } else if (templates.size() != 1) {
                problems.add(operation + " is routed by " + templates.size() + " entries of OperatorRoutes.ROUTES");
            } else {
                OperatorRoutes.OperatorRoute expected = templates
                        .get(0)
                        .route()
                        .apply(templates.get(0).match(sample).orElseThrow(), java.util.Map.of());
                if (!expected.equals(route)) {
                    problems.add(operation + " (as " + sample + ") is routed to " + route + ", not " + expected);
                }
            }
        }
        assertThat(problems)
                .as("described operations the API does not route as described")
                .isEmpty();
    }

    @Test
    void everyKindOfRouteTheParserAnswersIsInItsTable() {
        Set<String> tabled = new TreeSet<>();
        for (OperatorRoutes.Template template : OperatorRoutes.ROUTES) {
            String sample = Arrays.stream(template.path().split("/", -1))
                    .map(segment -> segment.startsWith("{") ? sampleSegment(segment) : segment)
                    .collect(Collectors.joining("/"));
            tabled.add(
                    OperatorRoutes.parse(template.method(), sample).getClass().getSimpleName());
        }
        Set<String> kinds = Arrays.stream(OperatorRoutes.OperatorRoute.class.getPermittedSubclasses())
                .map(Class::getSimpleName)
                .filter(name -> !name.equals("Invalid"))
                .collect(Collectors.toCollection(TreeSet::new));

        kinds.removeAll(tabled);
        assertThat(kinds)
                .as("kinds of OperatorRoute answered by no entry of OperatorRoutes.ROUTES: put each route's method "
                        + "and path in ROUTES, and describe it in openapi.yaml")
                .isEmpty();
    }

    /** A valid value for a path segment of the table's templates. */
    private static String sampleSegment(String segment) {
        return switch (segment) {
            case "{hostname}" -> "registry.example.com";
            case "{version}" -> "1.2.0";
            default -> "sample";
        };
    }

    @Test
    void aDescribedPathWithAnotherMethodIsRefusedAs405WithTheDescribedMethodsAllowed() {
        for (OpenApiDescription.Operation operation : description.operations()) {
            String sample = description.samplePath(operation);
            Set<String> documented = description.operations().stream()
                    .filter(op -> op.path().equals(operation.path()))
                    .map(OpenApiDescription.Operation::method)
                    .collect(Collectors.toCollection(LinkedHashSet::new));
            HttpMethod other = documented.contains("PUT") ? HttpMethod.PATCH : HttpMethod.PUT;

            OperatorRoutes.OperatorRoute route = OperatorRoutes.parse(other, sample);

            assertThat(route)
                    .as(operation.toString())
                    .isEqualTo(new OperatorRoutes.Invalid(405, ((OperatorRoutes.Invalid) route).message()));
            assertThat(Set.of(OperatorRoutes.allowed(sample).split(", ")))
                    .as(operation.toString())
                    .isEqualTo(documented);
            assertThat(description.statuses(operation)).as(operation.toString()).contains("405");
        }
    }

    @Test
    void everyOperationNeedsTheOperatorTokenAndDocumentsTheRefusalsEveryRequestCanGet() {
        JsonNode scheme = description.root().at("/components/securitySchemes/operatorToken");
        assertThat(scheme.path("type").asText()).isEqualTo("http");
        assertThat(scheme.path("scheme").asText()).isEqualTo("bearer");
        assertThat(description.root().at("/security/0").has("operatorToken")).isTrue();
        for (OpenApiDescription.Operation operation : description.operations()) {
            assertThat(operation.node().has("security"))
                    .as(operation + " must not override the operator token")
                    .isFalse();
            assertThat(description.statuses(operation))
                    .as(operation.toString())
                    .contains("200", "400", "401", "403", "404", "405", "413", "501", "5XX");
            for (String status : description.statuses(operation)) {
                if (status.startsWith("2")) {
                    continue;
                }
                JsonNode response = description
                        .response(operation, status.equals("5XX") ? 500 : Integer.parseInt(status))
                        .orElseThrow();
                assertThat(description.schema(response, "application/json"))
                        .as(operation + " " + status + " answers {\"errors\":[...]}")
                        .hasValue(description.resolve(description.root().at("/components/schemas/Errors")));
            }
        }
    }
}
