-- CreateTable
CREATE TABLE "connect_tenants" (
    "client_key" TEXT NOT NULL,
    "base_url" TEXT NOT NULL,
    "product_type" TEXT NOT NULL,
    "shared_secret" TEXT NOT NULL,
    "key_id" TEXT NOT NULL,
    "installed_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "uninstalled_at" TIMESTAMPTZ(6),
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "connect_tenants_pkey" PRIMARY KEY ("client_key")
);

-- CreateIndex
CREATE INDEX "connect_tenants_key_id_idx" ON "connect_tenants"("key_id");
