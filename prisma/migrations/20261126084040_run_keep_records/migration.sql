-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "keepRecords" BOOLEAN NOT NULL DEFAULT false;
