package io.providermirror.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.providermirror.upstream.ListedVersion;
import io.providermirror.upstream.OriginException;
import io.providermirror.upstream.OriginJson;
import io.providermirror.upstream.ReleaseEvidence;
import io.providermirror.upstream.ReleaseVerifier;
import io.providermirror.upstream.VersionList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dependency rules ARCHITECTURE.md states, checked on the main classes of every module the server is built
 * from (model, upstream, cache, s3, server): a rule broken here is a design change to discuss, not to suppress.
 */
final class ArchitectureTest {

    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        main = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.providermirror");
    }

    @Test
    void theProviderModelDependsOnNothingButTheJdk() {
        classes()
                .that()
                .resideInAPackage("io.providermirror.model..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage("java..", "io.providermirror.model..")
                .check(main);
    }

    @Test
    void theCacheKnowsNothingOfOriginsProvidersOrTheServer() {
        noClasses()
                .that()
                .resideInAPackage("io.providermirror.cache..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.providermirror.upstream..", "io.providermirror.server..", "io.providermirror.model..")
                .check(main);
    }

    @Test
    void theBucketStoresKnowNothingOfOriginsProvidersOrTheServer() {
        noClasses()
                .that()
                .resideInAPackage("io.providermirror.s3..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.providermirror.upstream..", "io.providermirror.server..", "io.providermirror.model..")
                .check(main);
    }

    @Test
    void talkingToOriginsKnowsNothingOfTheCacheOrTheServer() {
        noClasses()
                .that()
                .resideInAPackage("io.providermirror.upstream..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.providermirror.cache..", "io.providermirror.s3..", "io.providermirror.server..")
                .check(main);
    }

    /**
     * The judgement of what origins and bundles send (OpenPGP signatures, signature policy, SHA256SUMS, package
     * hashes, archive checks) stands on its own: it knows nothing else of mirror-upstream, so origins, fills and
     * bundles all use the one judgement, and it judges bytes already read (issue 27).
     */
    @Test
    void verificationDependsOnNothingElseOfTalkingToOrigins() {
        classes()
                .that()
                .resideInAPackage("io.providermirror.upstream.verify..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage(
                        "java..",
                        "io.providermirror.model..",
                        "io.providermirror.upstream.verify..",
                        "org.bouncycastle..",
                        "org.apache.commons.compress..",
                        "org.slf4j..")
                .check(main);
    }

    /**
     * Bundles judge what they carry with the verification package: of the rest of mirror-upstream they use only the
     * reading of origin documents (the version list, the release evidence and its reading, strict JSON, the failure
     * those raise), never its clients, git or transfers (issue 27).
     */
    @Test
    void bundlesUseVerificationThroughTheVerificationPackage() {
        noClasses()
                .that()
                .resideInAPackage("io.providermirror.server.bundle..")
                .should()
                .dependOnClassesThat(JavaClass.Predicates.resideInAPackage("io.providermirror.upstream..")
                        .and(DescribedPredicate.not(
                                JavaClass.Predicates.resideInAPackage("io.providermirror.upstream.verify..")))
                        .and(DescribedPredicate.not(JavaClass.Predicates.belongToAnyOf(
                                ReleaseEvidence.class,
                                ReleaseVerifier.class,
                                VersionList.class,
                                ListedVersion.class,
                                OriginJson.class,
                                OriginException.class))))
                .check(main);
    }

    @Test
    void nettyIsUsedOnlyByTheHttpPackageAndTheArchiveTransferClient() {
        noClasses()
                .that()
                .resideOutsideOfPackages("io.providermirror.server.http..", "io.providermirror.upstream.transfer..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.netty..")
                .check(main);
    }

    @Test
    void theArchiveTransferClientKnowsNothingOfOriginsTheCacheOrTheServer() {
        classes()
                .that()
                .resideInAPackage("io.providermirror.upstream.transfer..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage("java..", "javax.net.ssl..", "io.netty..", "io.providermirror.upstream.transfer..")
                .check(main);
    }

    @Test
    void theEngineAndTheFacesDoNotDependOnTheFrontEndTheWiringOrTheCommands() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        "io.providermirror.server.core..",
                        "io.providermirror.server.providers..",
                        "io.providermirror.server.face..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.providermirror.server.app..",
                        "io.providermirror.server.cli..",
                        "io.providermirror.server.http..",
                        "io.providermirror.server.status..",
                        "io.providermirror.server.warm..",
                        "io.providermirror.server.bundle..",
                        "io.providermirror.server.logging..")
                .check(main);
    }

    @Test
    void theEngineKnowsNoFaceAndNotTheProviderPath() {
        noClasses()
                .that()
                .resideInAPackage("io.providermirror.server.core..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.providermirror.server.face..", "io.providermirror.server.providers..")
                .check(main);
    }

    @Test
    void theProviderPathKnowsNoFace() {
        noClasses()
                .that()
                .resideInAPackage("io.providermirror.server.providers..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.providermirror.server.face..")
                .check(main);
    }

    @Test
    void theFacesDoNotDependOnEachOther() {
        slices().matching("io.providermirror.server.face.(*)..")
                .should()
                .notDependOnEachOther()
                .check(main);
    }

    /**
     * The http classes of one face (module routes and answers; providers.v1 routes and download documents) reach no
     * other face; the route parser and the handler that dispatches to every face are shared.
     */
    @Test
    void theModuleRoutesReachOnlyIntoTheModulesFace() {
        noClasses()
                .that()
                .resideInAPackage("io.providermirror.server.http..")
                .and()
                .haveSimpleNameStartingWith("Module")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.providermirror.server.face.mirror..",
                        "io.providermirror.server.face.providers..",
                        "io.providermirror.server.providers..")
                .check(main);
    }

    @Test
    void theProviderRegistryRoutesReachOnlyIntoTheProvidersFace() {
        noClasses()
                .that()
                .resideInAPackage("io.providermirror.server.http..")
                .and()
                .haveNameMatching(".*\\.(ProviderRegistry|RegistryDownload)[\\w$]*")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.providermirror.server.face.mirror..", "io.providermirror.server.face.modules..")
                .check(main);
    }

    /**
     * The status page renders the mirror's status as the operator API reports it ({@code report.MirrorStatus},
     * {@code report.ProviderStatus}, {@code report.ClientStatus}, {@code report.UsageStatus}, {@code
     * report.PolicyStatus}); it reads no engine, provider-path, face, meter, access or inventory class itself.
     */
    @Test
    void theStatusPageReadsTheMirrorOnlyThroughItsStatusReport() {
        noClasses()
                .that()
                .resideInAPackage("io.providermirror.server.status..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.providermirror.server.core..",
                        "io.providermirror.server.providers..",
                        "io.providermirror.server.face..",
                        "io.providermirror.server.metrics..",
                        "io.providermirror.server.access..",
                        "io.providermirror.server.inventory..")
                .check(main);
    }

    /** The status report is made from the engine and the faces, for the front end: it knows no front end. */
    @Test
    void theStatusReportKnowsNoFrontEnd() {
        noClasses()
                .that()
                .resideInAPackage("io.providermirror.server.report..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.providermirror.server.app..",
                        "io.providermirror.server.cli..",
                        "io.providermirror.server.http..",
                        "io.providermirror.server.status..",
                        "io.providermirror.server.operator..")
                .check(main);
    }

    @Test
    void onlyTheCommandLineDependsOnTheCommandLine() {
        noClasses()
                .that()
                .resideOutsideOfPackage("io.providermirror.server.cli..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.providermirror.server.cli..")
                .check(main);
    }

    @Test
    void theFrontEndDoesNotReachIntoTheWiringItIsWiredBy() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        "io.providermirror.server.http..",
                        "io.providermirror.server.status..",
                        "io.providermirror.server.access..",
                        "io.providermirror.server.metrics..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.providermirror.server.app..")
                .check(main);
    }

    @Test
    void onlyTheWiringKnowsWhichStoreBackendTheCacheIsOn() {
        noClasses()
                .that()
                .resideInAPackage("io.providermirror.server..")
                .and()
                .resideOutsideOfPackage("io.providermirror.server.app..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.providermirror.s3..")
                .check(main);
    }

    /**
     * Failures reach the front end as the engine's {@code core.Refusal}: the one place that turns them into a status
     * knows no face, origin or store (issue 27).
     */
    @Test
    void theFrontEndMapsFailuresThroughTheEnginesRefusalOnly() {
        noClasses()
                .that()
                .haveFullyQualifiedName("io.providermirror.server.http.FailureResponse")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.providermirror.server.face..",
                        "io.providermirror.server.providers..",
                        "io.providermirror.cache..",
                        "io.providermirror.upstream..",
                        "io.providermirror.s3..")
                .check(main);
    }

    @Test
    void noMainCodeDependsOnTheTestKit() {
        noClasses()
                .that()
                .resideOutsideOfPackage("io.providermirror.testkit..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.providermirror.testkit..")
                .check(main);
    }

    @Test
    void modulesHaveNoDependencyCycles() {
        slices().matching("io.providermirror.(*)..").should().beFreeOfCycles().check(main);
    }

    @Test
    void theServersPackagesHaveNoDependencyCycles() {
        slices().matching("io.providermirror.server.(*)..")
                .should()
                .beFreeOfCycles()
                .check(main);
    }
}
