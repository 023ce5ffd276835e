package io.providermirror.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

final class ModuleAddressTest {

    @Test
    void parsesFourPartsFoldingTheDefaultPort() {
        ModuleAddress address = ModuleAddress.parse("registry.terraform.io:443/azure/aks/azurerm");
        assertThat(address).isEqualTo(new ModuleAddress("registry.terraform.io", "azure", "aks", "azurerm"));
        assertThat(address.registryPath()).isEqualTo("azure/aks/azurerm");
        assertThat(address).hasToString("registry.terraform.io/azure/aks/azurerm");
    }

    @Test
    void everySpellingOfANamespaceAndNameIsOneAddressAsRegistriesCompareThemIgnoringCase() {
        ModuleAddress address = ModuleAddress.parse("registry.terraform.io/Azure/AKS/azurerm");
        assertThat(address).isEqualTo(ModuleAddress.parse("registry.terraform.io/azure/aks/azurerm"));
        assertThat(address).isEqualTo(new ModuleAddress("registry.terraform.io", "AZURE", "Aks", "azurerm"));
        assertThat(address.registryPath()).isEqualTo("azure/aks/azurerm");
        assertThat(address).hasToString("registry.terraform.io/azure/aks/azurerm");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "registry.terraform.io/acme/hello",
                "registry.terraform.io/acme/hello/null/x",
                "registry.terraform.io/acme/../null",
                "registry.terraform.io/acme/hello/Null",
                "registry.terraform.io/acme/hello/nu-ll",
                "registry.terraform.io/ac--me/hello/null",
                "registry.terraform.io/-acme/hello/null",
                "registry.terraform.io/acme/hel lo/null",
                "registry.terraform.io/acme/hello\u0000/null",
                "127.1/acme/hello/null",
                "Registry.terraform.io/acme/hello/null",
                "/acme/hello/null"
            })
    void rejectsAddressesThatAreNotModuleAddresses(String given) {
        assertThatThrownBy(() -> ModuleAddress.parse(given)).isInstanceOf(IllegalArgumentException.class);
    }
}
